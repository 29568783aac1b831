import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mcpToolList } from '../../src/mcp/index.js';
import { DOC_PATH, renderToolsReference, toolsSection, withToolsSection } from '../../scripts/mcp-docs.js';

describe('docs/mcp.md', () => {
  const doc = readFileSync(DOC_PATH, 'utf8');

  it('has the tools reference the tool schemas give now (run npm run docs:mcp when this fails)', () => {
    expect(toolsSection(doc)).toBe(renderToolsReference());
  });

  it('documents every tool the server lists, each with its input fields', () => {
    const section = toolsSection(doc) ?? '';
    for (const t of mcpToolList()) {
      expect(section).toContain(`### ${t.name}\n`);
      for (const field of Object.keys((t.inputSchema as { properties?: object }).properties ?? {})) expect(section).toContain(`| \`${field}\` |`);
    }
  });

  it('rewrites only the part between the markers', () => {
    const before = 'intro\n\n<!-- tools:start -->\nstale\n<!-- tools:end -->\n\nafter\n';
    expect(withToolsSection(before, 'fresh')).toBe('intro\n\n<!-- tools:start -->\n\nfresh\n\n<!-- tools:end -->\n\nafter\n');
    expect(toolsSection(withToolsSection(before, 'fresh'))).toBe('fresh');
    expect(() => withToolsSection('no markers', 'x')).toThrow(/tools:start/);
  });
});
