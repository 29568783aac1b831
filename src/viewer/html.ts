// The one way the viewer writes HTML on the server: the `html` tagged template, which escapes every
// interpolated value unless it is itself a fragment `html` (or `jsonScript`, or `trustedAsset`)
// made. Data never reaches the page as markup: the run's data goes in as JSON that the page script
// reads and writes as text nodes (see viewer-assets.ts).
import { sha256 } from '@noble/hashes/sha2';
import { utf8ToBytes } from '@noble/hashes/utils';
import { TotError } from '../errors/tot-error.js';

/**
 * A piece of HTML the viewer's own code built: the only value the {@link html} template writes
 * as it is. The class stays in this module, so no other code can make one from a string.
 */
class SafeHtml {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

/** HTML the viewer built (by {@link html}, {@link jsonScript} or {@link trustedAsset}). */
export type Html = SafeHtml;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Any value as HTML text, safe in element content and in a quoted attribute: `&`, `<`, `>`, `"`
 * and `'` become entities. A number is escaped like a string (it may arrive as one); `null` and
 * `undefined` are the empty string.
 *
 * @example
 * ```ts
 * escapeHtml('<img src=x onerror="a()">'); // '&lt;img src=x onerror=&quot;a()&quot;&gt;'
 * ```
 */
export function escapeHtml(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

function piece(value: unknown): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(piece).join('');
  return escapeHtml(value);
}

/**
 * HTML from a template: the literal parts are the viewer's markup, every interpolated value is
 * escaped (an array: each item), except a {@link Html} fragment that this module made.
 *
 * @example
 * ```ts
 * const cell = (v: unknown) => html`<td>${v}</td>`;
 * html`<tr>${['<b>', 1].map(cell)}</tr>`.toString(); // '<tr><td>&lt;b&gt;</td><td>1</td></tr>'
 * ```
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}

/**
 * A value as JSON to put inside `<script type="application/json">`: `<`, `>` and `&` as `\u` escapes
 * (no `</script>`, no `<!--` can end or change the element), and U+2028 and U+2029 as well.
 * `JSON.parse` of the element's text gives the value back.
 *
 * @example
 * ```ts
 * html`<script type="application/json">${jsonScript({ text: '</script>' })}</script>`;
 * // <script type="application/json">{"text":"\u003c/script\u003e"}</script>
 * ```
 */
export function jsonScript(value: unknown): Html {
  const json = JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return new SafeHtml(json);
}

/**
 * The viewer's own CSS or script text, to inline in a `<style>` or `<script>` element: written as
 * it is, so it must not close its element or open a comment (checked: an asset that would is a
 * bug in the viewer, refused with ILLEGAL_STATE).
 *
 * @example
 * ```ts
 * html`<style>${trustedAsset('body { margin: 0 }', 'style')}</style>`;
 * ```
 */
export function trustedAsset(text: string, element: 'script' | 'style'): Html {
  if (new RegExp(`</${element}|<!--|<script`, 'i').test(text)) throw new TotError('ILLEGAL_STATE', `The viewer's inline ${element} would end its element early; it was not written.`);
  return new SafeHtml(text);
}

/**
 * The base64 SHA-256 of a text's UTF-8 bytes: in a CSP, `'sha256-<it>'` allows exactly that inline
 * script or style.
 *
 * @example
 * ```ts
 * html`<meta http-equiv="Content-Security-Policy" content="script-src 'sha256-${sha256Base64(script)}'">`;
 * ```
 */
export function sha256Base64(text: string): string {
  let binary = '';
  for (const byte of sha256(utf8ToBytes(text))) binary += String.fromCharCode(byte);
  return btoa(binary);
}
