import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTools, calculateDate, getNow, parseToolRequest, runToolCall, toolInstructions, type AgentTool } from '../../src/deliberation/tools/index.js';
import { TotError } from '../../src/index.js';

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return TotError.isInstance(error) ? error.code : 'not a TotError';
  }
  return undefined;
};

/** 2025-12-04 02:00:00 UTC: 10:00 in Shanghai (UTC+8), 21:00 the day before in New York (UTC−5). */
const DEC_4_2AM_UTC = Date.UTC(2025, 11, 4, 2, 0, 0);
const fixedClock = () => DEC_4_2AM_UTC;

describe('calculateDate', () => {
  it('moves 2025-12-04 by 2 weeks and 3 days to Sunday 2025-12-21 (the spec sample, with the weekday computed)', () => {
    expect(calculateDate({ base_date: '2025-12-04', offset: { weeks: 2, days: 3 } })).toEqual({ result_date: '2025-12-21', weekday: 'Sunday' });
  });

  it('answers the base date itself without an offset', () => {
    expect(calculateDate({ base_date: '2025-12-04' })).toEqual({ result_date: '2025-12-04', weekday: 'Thursday' });
  });

  it('goes back across a year boundary with a negative offset', () => {
    expect(calculateDate({ base_date: '2025-01-03', offset: { weeks: -1 } })).toEqual({ result_date: '2024-12-27', weekday: 'Friday' });
  });

  it('goes back across a month boundary into a short February', () => {
    expect(calculateDate({ base_date: '2025-03-01', offset: { days: -3 } })).toEqual({ result_date: '2025-02-26', weekday: 'Wednesday' });
  });

  it('adds weeks and days of opposite signs together', () => {
    expect(calculateDate({ base_date: '2025-01-01', offset: { weeks: -3, days: -2 } })).toEqual({ result_date: '2024-12-09', weekday: 'Monday' });
    expect(calculateDate({ base_date: '2025-01-01', offset: { weeks: 1, days: -7 } })).toEqual({ result_date: '2025-01-01', weekday: 'Wednesday' });
  });

  it('moves from a leap day: 2024-02-29 + 1 week is Thursday 2024-03-07', () => {
    expect(calculateDate({ base_date: '2024-02-29', offset: { weeks: 1 } })).toEqual({ result_date: '2024-03-07', weekday: 'Thursday' });
  });

  it('rejects a date that is not in the calendar, naming the field', () => {
    for (const base_date of ['2025-02-30', '2023-02-29', '2025-13-01', '2025-04-31']) {
      expect(() => calculateDate({ base_date })).toThrow(/input\.base_date: .* is not a date in the calendar/);
    }
  });

  it('rejects a date not written YYYY-MM-DD', () => {
    for (const base_date of ['2025-2-3', '04/12/2025', '2025-12-04T00:00:00']) {
      expect(codeOf(() => calculateDate({ base_date }))).toBe('INVALID_ARGUMENT');
    }
  });

  it('rejects offsets that are not whole numbers within ±100,000, and unknown offset keys', () => {
    expect(codeOf(() => calculateDate({ base_date: '2025-12-04', offset: { days: 1.5 } }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => calculateDate({ base_date: '2025-12-04', offset: { weeks: 100_001 } }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => calculateDate({ base_date: '2025-12-04', offset: { day: 3 } as never }))).toBe('INVALID_ARGUMENT');
  });

  it('accepts the limit, counting in the proleptic Gregorian calendar (as Python\'s datetime does)', () => {
    expect(calculateDate({ base_date: '2025-12-04', offset: { days: -100_000 } }).result_date).toBe('1752-02-19');
  });

  it('rejects a result outside the years 0000–9999', () => {
    expect(() => calculateDate({ base_date: '9999-12-31', offset: { days: 1 } })).toThrow(/years 0000–9999/);
  });
});

describe('getNow', () => {
  it('tells the local wall time, date and weekday in Asia/Shanghai, to the second and without an offset', () => {
    expect(getNow({ timeZone: 'Asia/Shanghai', now: fixedClock })).toEqual({ now: '2025-12-04T10:00:00', timezone: 'Asia/Shanghai', weekday: 'Thursday', date: '2025-12-04' });
  });

  it('tells the previous evening in America/New_York for the same instant', () => {
    expect(getNow({ timeZone: 'America/New_York', now: fixedClock })).toEqual({ now: '2025-12-03T21:00:00', timezone: 'America/New_York', weekday: 'Wednesday', date: '2025-12-03' });
  });

  it('follows daylight saving time (New York is UTC−4 in July)', () => {
    expect(getNow({ timeZone: 'America/New_York', now: () => Date.UTC(2025, 6, 4, 3, 30, 15) }).now).toBe('2025-07-03T23:30:15');
  });

  it('writes midnight as 00, not 24', () => {
    expect(getNow({ timeZone: 'Asia/Shanghai', now: () => Date.UTC(2025, 11, 3, 16, 0, 0) }).now).toBe('2025-12-04T00:00:00');
  });

  it('drops the milliseconds', () => {
    expect(getNow({ timeZone: 'UTC', now: () => DEC_4_2AM_UTC + 999 }).now).toBe('2025-12-04T02:00:00');
  });

  it('uses the process time zone by default', () => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(getNow({ now: fixedClock })).toEqual(getNow({ timeZone: zone, now: fixedClock }));
  });

  it('rejects an unknown time zone, naming it', () => {
    expect(() => getNow({ timeZone: 'Mars/Olympus_Mons' })).toThrow(/options\.timeZone: unknown time zone "Mars\/Olympus_Mons"/);
    expect(codeOf(() => agentTools({ timeZone: 'Mars/Olympus_Mons' }))).toBe('INVALID_ARGUMENT');
  });

  it('rejects a clock that gives no valid time', () => {
    expect(codeOf(() => getNow({ timeZone: 'UTC', now: () => Number.NaN }))).toBe('INVALID_ARGUMENT');
  });
});

describe('runToolCall', () => {
  const tools = agentTools({ timeZone: 'Asia/Shanghai', now: fixedClock });

  it('answers get_now with the local time by the tools\' clock and zone', async () => {
    expect(await runToolCall(tools, { tool: 'get_now' })).toEqual({
      tool: 'get_now',
      success: true,
      data: { now: '2025-12-04T10:00:00', timezone: 'Asia/Shanghai', weekday: 'Thursday', date: '2025-12-04' },
    });
  });

  it('answers calculate_date with the input beside the "tool" key', async () => {
    const request = { tool: 'calculate_date', base_date: '2025-12-04', offset: { weeks: 2, days: 3 } };
    expect(await runToolCall(tools, request)).toEqual({ tool: 'calculate_date', success: true, data: { result_date: '2025-12-21', weekday: 'Sunday' } });
  });

  it('answers an unknown tool with an error naming the known tools', async () => {
    const result = await runToolCall(tools, { tool: 'get_time' });
    expect(result).toMatchObject({ tool: 'get_time', success: false });
    expect(result.error).toContain('There is no tool "get_time". The tools are: get_now, calculate_date.');
  });

  it('answers a request without a "tool" key with the form a request takes', async () => {
    const result = await runToolCall(tools, { name: 'get_now' });
    expect(result).toMatchObject({ tool: '', success: false });
    expect(result.error).toContain('"tool" key');
  });

  it('answers an input the schema rejects with the field at fault and the form to send', async () => {
    const result = await runToolCall(tools, { tool: 'calculate_date', base_date: '2025-02-30' });
    expect(result.success).toBe(false);
    expect(result.error).toContain('base_date: 2025-02-30 is not a date in the calendar');
    expect(result.error).toContain('Send {"tool": "calculate_date", "base_date": string, "offset"?: {"weeks"?: integer, "days"?: integer}}');
  });

  it('answers a tool that throws with its message, and does not throw', async () => {
    const broken: AgentTool = {
      name: 'broken',
      description: 'Always fails.',
      input: z.object({}),
      run: () => {
        throw new Error('the calendar service is down');
      },
    };
    const result = await runToolCall([broken], { tool: 'broken' });
    expect(result).toMatchObject({ tool: 'broken', success: false });
    expect(result.error).toContain('broken failed: the calendar service is down');
  });

  it('gives the tool the parsed input and the signal', async () => {
    const seen: unknown[] = [];
    const echo: AgentTool<z.ZodObject<{ n: z.ZodNumber }>> = {
      name: 'echo',
      description: 'Echoes n.',
      input: z.object({ n: z.number() }),
      run: async (input, { signal }) => {
        seen.push(input, signal);
        return { n: input.n };
      },
    };
    const controller = new AbortController();
    expect(await runToolCall([echo], { tool: 'echo', n: 2, extra: 'stripped' }, { signal: controller.signal })).toEqual({ tool: 'echo', success: true, data: { n: 2 } });
    expect(seen).toEqual([{ n: 2 }, controller.signal]);
  });

  it('rejects with ABORTED when the signal has already fired, without running the tool', async () => {
    let ran = false;
    const spy: AgentTool = { name: 'spy', description: 'Records a run.', input: z.object({}), run: () => (ran = true) };
    const controller = new AbortController();
    controller.abort();
    await expect(runToolCall([spy], { tool: 'spy' }, { signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(ran).toBe(false);
  });

  it('rejects with ABORTED when the signal fires while a tool is running, even one that ignores it', async () => {
    const hang: AgentTool = { name: 'hang', description: 'Never answers.', input: z.object({}), run: () => new Promise(() => undefined) };
    const controller = new AbortController();
    const call = runToolCall([hang], { tool: 'hang' }, { signal: controller.signal });
    controller.abort();
    await expect(call).rejects.toSatisfy((error: unknown) => TotError.isInstance(error) && error.code === 'ABORTED');
  });
});

describe('parseToolRequest', () => {
  it('reads a request in a markdown code fence', () => {
    expect(parseToolRequest('```json\n{"tool": "calculate_date", "base_date": "2025-12-04", "offset": {"days": 3}}\n```')).toEqual({
      tool: 'calculate_date',
      base_date: '2025-12-04',
      offset: { days: 3 },
    });
  });

  it('reads a bare request with whitespace around it', () => {
    expect(parseToolRequest('  {"tool": "get_now"}\n')).toEqual({ tool: 'get_now' });
  });

  it('takes plain prose for an ordinary reply', () => {
    expect(parseToolRequest('Let me check the date: {"tool": "get_now"}')).toBeUndefined();
    expect(parseToolRequest('The meeting is on Sunday.')).toBeUndefined();
  });

  it('takes a JSON object without a string "tool" key for an ordinary reply', () => {
    expect(parseToolRequest('{"answer": "Sunday"}')).toBeUndefined();
    expect(parseToolRequest('{"tool": 3}')).toBeUndefined();
    expect(parseToolRequest('[{"tool": "get_now"}]')).toBeUndefined();
  });

  it('takes broken JSON for an ordinary reply', () => {
    expect(parseToolRequest('{"tool": "get_now"')).toBeUndefined();
  });
});

describe('toolInstructions', () => {
  it('shows the JSON form, and each tool with its description and input fields', () => {
    const text = toolInstructions(agentTools({ timeZone: 'UTC' }));
    expect(text).toContain('reply with only a JSON object whose "tool" key names the tool');
    expect(text).toContain('{"success": true, "data": {...}}');
    expect(text).toContain('- get_now: Tells the current local date, time');
    expect(text).toContain('Send {"tool": "get_now"}.');
    expect(text).toContain('Send {"tool": "calculate_date", "base_date": string, "offset"?: {"weeks"?: integer, "days"?: integer}}');
    expect(text).toContain('base_date (required): the date to start from, YYYY-MM-DD');
    expect(text).toContain('offset.weeks (optional): whole weeks to add (negative to go back)');
  });

  it('is empty without tools', () => {
    expect(toolInstructions([])).toBe('');
  });
});
