// A request key is compared, never trusted: a 106-bit digest (cyrb53 with two seeds) makes a
// collision between two requests of one run negligible, and costs a fraction of a hash from
// node:crypto, which the core does not import (it runs wherever a model port does).
function cyrb53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** A stable 28-character hex digest of `text`. */
export function digest(text: string): string {
  return cyrb53(text, 0).toString(16).padStart(14, '0') + cyrb53(text, 0x9e3779b9).toString(16).padStart(14, '0');
}
