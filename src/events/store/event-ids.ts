/** Ids a block shares one random draw across: the last 16 bits of each id count within the block. */
const BLOCK = 0x1_0000;

// Random bytes are drawn 4 KiB at a time: one draw costs about as much for 8 bytes as for 4,096.
const pool = new Uint8Array(4096);
let used = pool.length;

function randomBytes(count: number): Uint8Array {
  if (count > pool.length) return crypto.getRandomValues(new Uint8Array(count));
  if (used + count > pool.length) {
    crypto.getRandomValues(pool);
    used = 0;
  }
  used += count;
  return pool.slice(used - count, used);
}

const HEX: string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/**
 * Event ids for one append: UUID version 7 strings (RFC 9562), the time in milliseconds first, so
 * ids sort by the millisecond they were made in (and within a block, in batch order), and a
 * database index on them grows at its end.
 *
 * Drawing random bytes is most of the cost of an id, so a batch draws once per 65,536 ids and
 * numbers them with a counter in the last 16 bits — RFC 9562 section 6.2, method 1. That leaves 58
 * random bits per block: two blocks made in the same millisecond collide with odds of 2⁻⁵⁸.
 * Ids are made on demand, so a store can keep the block and rebuild an id when it is read.
 */
export class TimeOrderedIds {
  private prefixes: string[] | undefined;

  /** `now`: the time the ids carry, taken when the batch is written (the random part is drawn on first use). */
  constructor(
    private readonly count: number,
    private readonly now: number = Date.now(),
  ) {}

  /** The millisecond the ids carry. */
  get time(): number {
    return this.now;
  }

  /**
   * Where `id` is in the batch, or -1 when it is none of the batch's ids. Before any id was made
   * (the random part is not drawn yet) nobody can know one, so nothing matches.
   */
  indexOf(id: string): number {
    if (this.prefixes === undefined || id.length !== 36) return -1;
    const block = this.prefixes.indexOf(id.slice(0, 32));
    if (block === -1 || !/^[0-9a-f]{4}$/.test(id.slice(32))) return -1;
    const i = block * BLOCK + Number.parseInt(id.slice(32), 16);
    return i < this.count ? i : -1;
  }

  /** The id of the `i`-th event of the batch. */
  at(i: number): string {
    this.prefixes ??= this.draw();
    const n = i % BLOCK;
    return this.prefixes[(i - n) / BLOCK]! + HEX[n >>> 8]! + HEX[n & 0xff]!;
  }

  private draw(): string[] {
    const time = this.now.toString(16).padStart(12, '0').slice(-12);
    const blocks = Math.max(1, Math.ceil(this.count / BLOCK));
    const random = randomBytes(8 * blocks);
    const prefixes: string[] = [];
    for (let b = 0; b < blocks; b++) {
      const r = Array.from(random.subarray(8 * b, 8 * b + 8), (byte) => HEX[byte]!);
      // Version 7 in the high nibble of the UUID's byte 6, the RFC variant (0b10) in the top bits of byte 8.
      r[0] = HEX[(random[8 * b]! & 0x0f) | 0x70]!;
      r[2] = HEX[(random[8 * b + 2]! & 0x3f) | 0x80]!;
      prefixes.push(`${time.slice(0, 8)}-${time.slice(8, 12)}-${r[0]}${r[1]}-${r[2]}${r[3]}-${r.slice(4).join('')}`);
    }
    return prefixes;
  }
}
