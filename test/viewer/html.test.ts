// The viewer's one way to write HTML on the server (the `html` template, JSON for a script
// element, its own inline assets, their CSP hashes), without a browser.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, html, jsonScript, sha256Base64, trustedAsset } from '../../src/viewer/html.js';
import { VIEWER_CSS, VIEWER_SCRIPT } from '../../src/viewer/viewer-assets.js';

describe('escapeHtml', () => {
  it('writes the five characters that can end text or a quoted attribute as entities', () => {
    expect(escapeHtml(`<img src=x onerror="a('b')"> & more`)).toBe('&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt; &amp; more');
  });

  it('escapes a value of any type as its text, and nothing as the empty string', () => {
    expect(escapeHtml(42)).toBe('42');
    expect(escapeHtml('<b>')).toBe('&lt;b&gt;');
    expect(escapeHtml(null)).toBe('');
    expect(escapeHtml(undefined)).toBe('');
    expect(escapeHtml({ toString: () => '"><svg onload=x>' })).toBe('&quot;&gt;&lt;svg onload=x&gt;');
  });

  it('leaves no <, >, " or \' in any string, and an entity decoder gives the string back', () => {
    const decode = (s: string) => s.replace(/&(lt|gt|quot|#39|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[e]!);
    fc.assert(
      // Strings of the characters that matter, and a few that do not.
      fc.property(fc.string({ unit: fc.constantFrom('<', '>', '"', "'", '&', ';', '#', 'l', 't', 'a', '\u2028', 'é', '😀') }), (s) => {
        const out = escapeHtml(s);
        expect(out).not.toMatch(/[<>"']/);
        expect(decode(out)).toBe(s);
      }),
    );
  });
});

describe('html', () => {
  it('escapes every interpolated value, the literal parts written as they are', () => {
    const title = '</title><script>alert(1)</script>';
    expect(html`<title>${title}</title>`.toString()).toBe('<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>');
  });

  it('escapes a number-looking value like any other: an attribute cannot be broken out of', () => {
    const score = '1" onmouseover="alert(1)';
    expect(html`<td data-score="${score}">${score}</td>`.toString()).toBe('<td data-score="1&quot; onmouseover=&quot;alert(1)">1&quot; onmouseover=&quot;alert(1)</td>');
  });

  it('writes a fragment html made as it is, and an array item by item, each escaped unless it is one', () => {
    const cell = (v: unknown) => html`<td>${v}</td>`;
    expect(html`<tr>${[cell('<i>'), '<b>', cell(1)]}</tr>`.toString()).toBe('<tr><td>&lt;i&gt;</td>&lt;b&gt;<td>1</td></tr>');
  });

  it('takes nothing else as markup: a look-alike object is escaped', () => {
    const fake = { markup: '<script>alert(1)</script>', toString: () => '<script>alert(1)</script>' };
    expect(html`${fake}`.toString()).toBe('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('jsonScript', () => {
  it('writes no <, >, & or line separator, so no </script> or <!-- can end or change the element', () => {
    const value = { text: '</script><script>alert(1)</script> <!-- a && b \u2028\u2029 -->' };
    const out = jsonScript(value).toString();
    expect(out).not.toMatch(/[<>&\u2028\u2029]/);
    expect(out).toBe('{"text":"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e \\u003c!-- a \\u0026\\u0026 b \\u2028\\u2029 --\\u003e"}');
  });

  it('parses back to the value it was given, whatever the strings hold', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const out = jsonScript(v).toString();
        expect(out).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(v)));
      }),
    );
  });
});

describe('trustedAsset', () => {
  it('refuses an inline script or style that would end its element or open a comment', () => {
    expect(() => trustedAsset('a = "</script>"', 'script')).toThrow(expect.objectContaining({ code: 'ILLEGAL_STATE' }));
    expect(() => trustedAsset('x { } </STYLE>', 'style')).toThrow(expect.objectContaining({ code: 'ILLEGAL_STATE' }));
    expect(() => trustedAsset('<!-- x', 'script')).toThrow(expect.objectContaining({ code: 'ILLEGAL_STATE' }));
  });

  it("takes the viewer's own CSS and script", () => {
    expect(trustedAsset(VIEWER_SCRIPT, 'script').toString()).toBe(VIEWER_SCRIPT);
    expect(trustedAsset(VIEWER_CSS, 'style').toString()).toBe(VIEWER_CSS);
  });
});

describe('sha256Base64', () => {
  it("is the base64 SHA-256 of the text's UTF-8 bytes, as a CSP hash source takes it", () => {
    for (const text of ['', 'alert(1)', VIEWER_SCRIPT, 'non-ASCII · … →']) {
      expect(sha256Base64(text)).toBe(createHash('sha256').update(text, 'utf8').digest('base64'));
    }
  });
});
