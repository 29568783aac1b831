// Small helpers every kind of run's view uses.

/** A run event as the views read it: its type and whatever else it carries. */
export type AnyEvent = Record<string, unknown> & { type: string };

/** A value as text: a string as it is, anything else as JSON, nothing as ''. */
export const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));

/** A node's label: the first words of its text, on one line. */
export const label = (text: string, max = 48): string => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};
