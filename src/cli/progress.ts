/**
 * A progress bar on stderr for a long command. Drawn only when both stdout and the bar's stream
 * are terminals: a command piped into a file or another program, or run by CI, prints its results
 * and nothing else.
 */
export function progress(
  total: number,
  label: string,
  stream: Pick<NodeJS.WriteStream, 'write' | 'isTTY' | 'columns'> = process.stderr,
  stdoutIsTTY: boolean = process.stdout.isTTY === true,
): { tick(note?: string): void; done(): void } {
  const on = stdoutIsTTY && stream.isTTY === true;
  let n = 0;
  const draw = (note = '') => {
    if (!on) return;
    const width = 24;
    const filled = Math.round((n / Math.max(total, 1)) * width);
    stream.write(`\r${label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${n}/${total} ${note}`.slice(0, (stream.columns ?? 100) - 1).padEnd(Math.min(stream.columns ?? 100, 100) - 1));
  };
  draw();
  return {
    tick(note) {
      n += 1;
      draw(note);
    },
    done() {
      if (on) stream.write('\n');
    },
  };
}
