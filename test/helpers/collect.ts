/** Everything an async iterable yields, in order (`Array.fromAsync` arrives with Node 22). */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
