// The progress bar of long `tot` commands: drawn on a terminal, silent anywhere else.
import { describe, expect, it } from 'vitest';
import { progress } from '../../src/cli/progress.js';

const sink = (isTTY: boolean, columns = 80) => {
  const written: string[] = [];
  return { written, stream: { isTTY, columns, write: (s: string) => (written.push(s), true) } };
};

describe('progress', () => {
  it('draws the bar from empty to full on a terminal, then ends the line', () => {
    const { written, stream } = sink(true);
    const bar = progress(2, 'puzzles', stream, true);
    bar.tick('4 9 10 13');
    bar.tick();
    bar.done();
    expect(written[0]).toMatch(/^\rpuzzles \[ {24}\] 0\/2/);
    expect(written[1]).toMatch(/^\rpuzzles \[#{12} {12}\] 1\/2 4 9 10 13/);
    expect(written[2]).toMatch(/^\rpuzzles \[#{24}\] 2\/2/);
    expect(written[3]).toBe('\n');
  });

  it('keeps every frame within the terminal width, so it redraws in place', () => {
    const { written, stream } = sink(true, 30);
    const bar = progress(3, 'puzzles', stream, true);
    bar.tick('a note far too long to fit on a line this narrow');
    expect(written.every((w) => w.length <= 30 - 1)).toBe(true);
  });

  it('writes nothing when stdout is not a terminal (a pipe, a file, CI)', () => {
    const { written, stream } = sink(true);
    const bar = progress(2, 'puzzles', stream, false);
    bar.tick();
    bar.done();
    expect(written).toEqual([]);
  });

  it('writes nothing when its own stream is not a terminal', () => {
    const { written, stream } = sink(false);
    const bar = progress(2, 'puzzles', stream, true);
    bar.tick();
    bar.done();
    expect(written).toEqual([]);
  });
});
