// JsonDepthScanner, the check `tot mcp --http` makes of a request body's nesting on its raw bytes
// before parsing it: brackets count only outside strings, escapes are honoured, and a body may
// arrive in chunks split anywhere.
import { describe, expect, it } from 'vitest';
import { JsonDepthScanner } from '../../src/mcp/http/json-depth.js';

const depthOf = (...chunks: string[]) => {
  const scanner = new JsonDepthScanner();
  let max = 0;
  for (const chunk of chunks) max = scanner.scan(Buffer.from(chunk));
  return max;
};

describe('JsonDepthScanner', () => {
  it('measures the deepest nesting of arrays and objects', () => {
    expect(depthOf('1')).toBe(0);
    expect(depthOf('{}')).toBe(1);
    expect(depthOf('{"a": [1, {"b": [[2]]}], "c": {}}')).toBe(5);
    expect(depthOf('[[]] [[[]]]')).toBe(3);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(depthOf('{"a": "[[[{{{"}')).toBe(1);
    expect(depthOf(String.raw`["a \" [[[ still a string", "\\", [1]]`)).toBe(2);
    expect(depthOf('["é[[", "日本[[["]')).toBe(1);
  });

  it('gives the same depth however the text is split into chunks, a split inside an escape included', () => {
    const text = String.raw`{"a": "x\"[[", "b": [[1]]}`;
    for (let i = 0; i <= text.length; i++) expect(depthOf(text.slice(0, i), text.slice(i)), `split at ${i}`).toBe(3);
  });
});
