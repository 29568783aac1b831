import { z } from 'zod';
import { TotError } from '../../errors/index.js';
import { fnSchema, parseOptions } from '../../internal/validate.js';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
const DAY_MS = 86_400_000;
const MAX_OFFSET = 100_000;

/**
 * Options of {@link getNow} and of the `get_now` tool.
 *
 * @example
 * ```ts
 * import type { GetNowOptions } from '@tot/core/deliberation';
 *
 * const options: GetNowOptions = { timeZone: 'Asia/Shanghai', now: () => Date.UTC(2025, 11, 4, 2) };
 * ```
 */
export interface GetNowOptions {
  /** An IANA time zone, such as `Asia/Shanghai`; by default the process's own. */
  timeZone?: string;
  /** The clock, in epoch milliseconds (default `Date.now`): a test passes a fixed one. */
  now?: () => number;
}

/**
 * What `get_now` answers: the local wall time in a time zone.
 *
 * @example
 * ```ts
 * import type { GetNowResult } from '@tot/core/deliberation';
 *
 * const now: GetNowResult = { now: '2025-12-04T10:00:00', timezone: 'Asia/Shanghai', weekday: 'Thursday', date: '2025-12-04' };
 * ```
 */
export interface GetNowResult {
  /** Local date and time, `YYYY-MM-DDTHH:mm:ss`, without an offset. */
  now: string;
  /** The time zone `now` is in. */
  timezone: string;
  /** The English name of the local day of the week. */
  weekday: string;
  /** The local date, `YYYY-MM-DD`. */
  date: string;
}

/**
 * The input of {@link calculateDate} and of the `calculate_date` tool.
 *
 * @example
 * ```ts
 * import type { CalculateDateInput } from '@tot/core/deliberation';
 *
 * const input: CalculateDateInput = { base_date: '2025-12-04', offset: { weeks: 2, days: 3 } };
 * ```
 */
export interface CalculateDateInput {
  /** The date to start from, `YYYY-MM-DD`. */
  base_date: string;
  /** How far to move; the weeks and days add up, and either may be negative. */
  offset?: {
    /** Whole weeks, at most 100,000 either way. */
    weeks?: number;
    /** Whole days, at most 100,000 either way. */
    days?: number;
  };
}

/**
 * What `calculate_date` answers.
 *
 * @example
 * ```ts
 * import type { CalculateDateResult } from '@tot/core/deliberation';
 *
 * const result: CalculateDateResult = { result_date: '2025-12-21', weekday: 'Sunday' };
 * ```
 */
export interface CalculateDateResult {
  /** The date reached, `YYYY-MM-DD`. */
  result_date: string;
  /** The English name of its day of the week. */
  weekday: string;
}

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Epoch milliseconds of midnight UTC on a `YYYY-MM-DD` date, or `undefined` if no such day exists. */
function utcMidnight(text: string): number | undefined {
  const match = DATE_PATTERN.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0–99 as 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  // Date rolls 2025-02-30 over into March: a date that does not come back unchanged does not exist.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return date.getTime();
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function isoDate(date: Date): string {
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const offsetPart = z.number().int().min(-MAX_OFFSET).max(MAX_OFFSET).optional();

/**
 * The zod schema of the `calculate_date` input (strict: a mistyped key such as `day` would
 * otherwise be dropped silently and the date computed with no offset).
 *
 * @example
 * ```ts
 * import { calculateDateInputSchema } from '@tot/core/deliberation';
 *
 * calculateDateInputSchema.safeParse({ base_date: '2025-02-30' }).success; // false
 * ```
 */
export const calculateDateInputSchema = z
  .object({
    base_date: z
      .string()
      .regex(DATE_PATTERN, 'expected a date written YYYY-MM-DD')
      .refine((v) => utcMidnight(v) !== undefined, { error: (issue) => `${String(issue.input)} is not a date in the calendar` })
      .describe('the date to start from, YYYY-MM-DD'),
    offset: z
      .object({
        weeks: offsetPart.describe('whole weeks to add (negative to go back)'),
        days: offsetPart.describe('whole days to add (negative to go back)'),
      })
      .strict()
      .optional()
      .describe('how far to move from base_date; weeks and days add up'),
  })
  .strict();

/**
 * The zod schema of the `get_now` input: nothing. Unknown keys are ignored, since none of them
 * could change the answer.
 *
 * @example
 * ```ts
 * import { getNowInputSchema } from '@tot/core/deliberation';
 *
 * getNowInputSchema.parse({}); // {}
 * ```
 */
export const getNowInputSchema = z.object({});

const getNowOptionsSchema = z
  .strictObject({
    timeZone: z.string().refine(isTimeZone, { error: (issue) => `unknown time zone ${JSON.stringify(issue.input)}` }).optional(),
    now: fnSchema<() => number>().optional(),
  })
  .optional();

/** Validates the options of `getNow` (and `agentTools`, which passes them on). */
export function parseGetNowOptions(options: unknown, where: string): GetNowOptions {
  return parseOptions(getNowOptionsSchema, options, where) ?? {};
}

// Building a DateTimeFormat costs tens of microseconds; the zones in use are few.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    // hourCycle h23, not hour12: false: with the latter some ICU versions write midnight as 24.
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      weekday: 'long',
    });
    formatters.set(zone, format);
  }
  return format;
}

/**
 * The current local date, time and weekday in a time zone (the `get_now` tool): the wall time to
 * the second, without an offset, as a person there would read it.
 *
 * @throws `INVALID_ARGUMENT` for an unknown time zone, or a clock that returns no valid time.
 *
 * @example
 * ```ts
 * import { getNow } from '@tot/core/deliberation';
 *
 * getNow({ timeZone: 'Asia/Shanghai', now: () => Date.UTC(2025, 11, 4, 2, 0, 0) });
 * // { now: '2025-12-04T10:00:00', timezone: 'Asia/Shanghai', weekday: 'Thursday', date: '2025-12-04' }
 * ```
 */
export function getNow(options: GetNowOptions = {}): GetNowResult {
  const { timeZone, now = Date.now } = parseGetNowOptions(options, 'getNow');
  const zone = timeZone ?? (Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  const ms = now();
  const instant = new Date(ms);
  if (Number.isNaN(instant.getTime())) {
    throw new TotError('INVALID_ARGUMENT', `getNow: options.now: returned ${String(ms)}, expected epoch milliseconds.`, { details: { field: 'options.now' } });
  }
  const format = formatterFor(zone);
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(instant)) parts[part.type] = part.value;
  const date = `${(parts.year ?? '').padStart(4, '0')}-${parts.month}-${parts.day}`;
  // ICU would report Asia/Kolkata as its legacy name Asia/Calcutta: keep the caller's spelling,
  // correcting only its case.
  const resolved = format.resolvedOptions().timeZone;
  const timezone = resolved.toLowerCase() === zone.toLowerCase() ? resolved : zone;
  return { now: `${date}T${parts.hour}:${parts.minute}:${parts.second}`, timezone, weekday: parts.weekday ?? '', date };
}

/**
 * A date moved by whole weeks and days (the `calculate_date` tool). The arithmetic is in UTC
 * calendar days, so no daylight-saving change can shift the result.
 *
 * @throws `INVALID_ARGUMENT` for a date that is not `YYYY-MM-DD` or does not exist (2025-02-30),
 * an offset that is not a whole number within ±100,000, or a result outside the years 0000–9999.
 *
 * @example
 * ```ts
 * import { calculateDate } from '@tot/core/deliberation';
 *
 * calculateDate({ base_date: '2025-12-04', offset: { weeks: 2, days: 3 } });
 * // { result_date: '2025-12-21', weekday: 'Sunday' }
 * ```
 */
export function calculateDate(input: CalculateDateInput): CalculateDateResult {
  const { base_date, offset } = parseOptions(calculateDateInputSchema, input, 'calculateDate', 'input');
  const days = (offset?.weeks ?? 0) * 7 + (offset?.days ?? 0);
  const result = new Date(utcMidnight(base_date)! + days * DAY_MS);
  const year = result.getUTCFullYear();
  if (year < 0 || year > 9999) {
    throw new TotError('INVALID_ARGUMENT', `calculateDate: input.offset: ${base_date} moved by ${days} days leaves the years 0000–9999.`, { details: { field: 'input.offset' } });
  }
  // The weekday is computed from the date, never copied: the protocol's own sample calls
  // 2025-12-21 a Saturday, and it is a Sunday.
  return { result_date: isoDate(result), weekday: WEEKDAYS[result.getUTCDay()]! };
}
