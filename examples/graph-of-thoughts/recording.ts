/**
 * Reads a worked Graph-of-Thoughts run in the format of the paper repository's example files
 * (`example_prompts_<task>.md`): the input, then for each step its prompt and its recorded
 * responses (`### Step 2a - Prompt`, `### Step 2a - 5 Responses`), then the final result.
 */

/** One step of a recorded run: its label (`1`, `2a`, …), its prompt and the responses recorded for it. */
export interface RecordedStep {
  label: string;
  prompt: string;
  responses: string[];
}

export interface GotRecording {
  title: string;
  input: string;
  steps: Map<string, RecordedStep>;
  finalResult: string;
}

/** The body of a section's fenced block; a section holds exactly one. */
function fenced(section: string, where: string): string {
  const lines = section.split('\n');
  const fences = lines.flatMap((l, i) => (l.startsWith('```') ? [i] : []));
  if (fences.length < 2) throw new Error(`${where}: no fenced block`);
  if (fences.length > 2) throw new Error(`${where}: ${Math.floor(fences.length / 2)} fenced blocks where one was expected`);
  return lines.slice(fences[0]! + 1, fences[1]).join('\n');
}

/** `1. …`, `2. …`: numbered responses, each possibly over several indented lines. */
function numbered(body: string, count: number, where: string): string[] {
  const items: string[][] = [];
  for (const line of body.split('\n')) {
    const next = items.length + 1;
    const m = new RegExp(`^${next}\\.\\s?(.*)$`).exec(line);
    if (m && next <= count) items.push([m[1]!]);
    else if (items.length > 0) items.at(-1)!.push(line);
    else if (line.trim() !== '') throw new Error(`${where}: text before response 1`);
  }
  if (items.length !== count) throw new Error(`${where}: ${items.length} responses where the heading says ${count}`);
  return items.map((lines) => {
    const rest = lines.slice(1);
    const indents = rest.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length);
    const cut = indents.length > 0 ? Math.min(...indents) : 0;
    return [lines[0]!, ...rest.map((l) => l.slice(Math.min(cut, /^ */.exec(l)![0].length)))].join('\n').trim();
  });
}

/** Parses a recording; throws, naming the section, on anything out of format. */
export function parseGotRecording(text: string): GotRecording {
  const title = /^# (.+)$/m.exec(text)?.[1]?.trim() ?? '';
  const from = text.indexOf('## Complete Example Prompts');
  if (from === -1) throw new Error('no "## Complete Example Prompts" section');
  const sections = text.slice(from).split(/^### /m).slice(1);
  let input: string | undefined;
  let finalResult: string | undefined;
  const steps = new Map<string, RecordedStep>();
  const step = (label: string) => {
    let s = steps.get(label);
    if (!s) steps.set(label, (s = { label, prompt: '', responses: [] }));
    return s;
  };
  for (const section of sections) {
    const heading = section.slice(0, section.indexOf('\n')).trim();
    let m: RegExpExecArray | null;
    if (heading === 'Input') input = fenced(section, heading);
    else if (heading === 'Final Result') finalResult = fenced(section, heading);
    else if ((m = /^Step (\w+) - Prompt$/.exec(heading))) step(m[1]!).prompt = fenced(section, heading);
    else if ((m = /^Step (\w+) - Response$/.exec(heading))) step(m[1]!).responses = [fenced(section, heading).trim()];
    else if ((m = /^Step (\w+) - (\d+) Responses$/.exec(heading))) step(m[1]!).responses = numbered(fenced(section, heading), Number(m[2]), heading);
  }
  if (input === undefined) throw new Error('no "### Input" section');
  if (finalResult === undefined) throw new Error('no "### Final Result" section');
  for (const s of steps.values()) {
    if (s.prompt === '') throw new Error(`step ${s.label} has responses but no prompt`);
    if (s.responses.length === 0) throw new Error(`step ${s.label} has a prompt but no responses`);
  }
  return { title, input, steps, finalResult };
}

/** The data part of a recorded prompt: what follows its last closing tag (`</Examples>`, `</Approach>`, …). */
export function promptData(prompt: string): string {
  const tags = [...prompt.matchAll(/<\/[A-Za-z]+>/g)];
  const last = tags.at(-1);
  return last ? prompt.slice(last.index! + last[0].length) : prompt;
}

/** Every `[ … ]` list of integers in a text. */
export function listsIn(text: string): number[][] {
  return [...text.matchAll(/\[([\d\s,-]*)\]/g)].map((m) => (m[1]!.trim() === '' ? [] : m[1]!.split(',').map((x) => Number(x.trim()))));
}

/** Every top-level `{ … }` block of a text that parses as JSON. */
export function objectsIn(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let depth = 0;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') {
      if (depth === 0) start = i;
      depth += 1;
    } else if (c === '}' && depth > 0) {
      depth -= 1;
      if (depth === 0) {
        try {
          out.push(JSON.parse(text.slice(start, i + 1)) as Record<string, unknown>);
        } catch {
          // Not JSON: prose in braces.
        }
      }
    }
  }
  return out;
}
