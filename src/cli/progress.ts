/** A progress bar on stderr for a long command; silent when stdout is not a terminal (a pipe, CI, a file). */
export function progress(total: number, label: string, stream: NodeJS.WriteStream = process.stderr): { tick(note?: string): void; done(): void } {
  const on = process.stdout.isTTY === true && stream.isTTY === true;
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
