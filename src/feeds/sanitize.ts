import { decodeHTML } from 'entities';
import sanitizeHtml from 'sanitize-html';

/** Resolves `href` against `base`; keeps it as it is when it cannot be resolved. */
export function absoluteUrl(href: string | null | undefined, base: string | null | undefined): string | null {
  if (!href) return null;
  const trimmed = href.trim();
  try {
    return new URL(trimmed, base ?? undefined).href;
  } catch {
    return trimmed;
  }
}

const URL_ATTRIBUTES: Record<string, string[]> = { a: ['href'], img: ['src'], source: ['src'], video: ['src', 'poster'], audio: ['src'] };

/**
 * Feed HTML made safe to store and show: no scripts, styles, frames, forms, event handlers or
 * `javascript:` URLs (sanitize-html's allow-list), with links and images made absolute against
 * `base`.
 */
export function sanitizeFeedHtml(html: string | null | undefined, base: string | null): string | null {
  if (html === null || html === undefined) return null;
  const clean = sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'figure', 'figcaption', 'picture', 'source', 'video', 'audio'],
    allowedAttributes: {
      a: ['href', 'title', 'rel'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      source: ['src', 'type'],
      video: ['src', 'poster', 'controls'],
      audio: ['src', 'controls'],
      '*': ['lang', 'dir'],
    },
    allowedSchemes: ['http', 'https', 'mailto', 'data'],
    allowedSchemesByTag: { img: ['http', 'https', 'data'] },
    allowProtocolRelative: true,
    transformTags: Object.fromEntries(
      Object.entries(URL_ATTRIBUTES).map(([tag, attributes]) => [
        tag,
        (tagName: string, attribs: sanitizeHtml.Attributes) => {
          for (const attribute of attributes) {
            const value = attribs[attribute];
            if (value !== undefined) attribs[attribute] = absoluteUrl(value, base) ?? value;
          }
          return { tagName, attribs };
        },
      ]),
    ),
  }).trim();
  return clean === '' ? null : clean;
}

/** Plain text of a title-like field: tags dropped, entities decoded, whitespace collapsed. */
export function plainText(html: string | null | undefined): string | null {
  if (html === null || html === undefined) return null;
  const text = decodeHTML(sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} })).replace(/\s+/g, ' ').trim();
  return text === '' ? null : text;
}
