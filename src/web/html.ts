/**
 * Server-rendered HTML with auto-escaping: `html\`<p>${text}</p>\`` escapes every interpolated
 * value, so text from feeds and pages can never become markup. Markup that is already safe — a
 * nested `html` fragment, or an article body sanitized when it was extracted — passes through
 * only when wrapped in `Safe` (by `html` itself, or by `trusted` at the one place a stored
 * sanitized body is shown). Arrays are joined; null and undefined render as nothing.
 */

export class Safe {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Value = Safe | string | number | boolean | null | undefined | Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Safe) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Safe {
  let out = strings[0]!;
  values.forEach((value, i) => (out += render(value) + strings[i + 1]!));
  return new Safe(out);
}

/** HTML sanitized before it was stored (an article body: sanitize-html at extraction). */
export const trusted = (sanitized: string): Safe => new Safe(sanitized);
