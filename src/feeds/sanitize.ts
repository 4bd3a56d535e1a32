import { decodeHTML } from 'entities';
import sanitizeHtml from 'sanitize-html';

/**
 * `href` resolved against `base` when the result is an absolute http(s) URL; else null. For URLs
 * that enter the archive as an address (a canonical link): a string that does not parse is
 * someone's text, never a URL to store.
 */
export function webUrl(href: string | null | undefined, base: string | null | undefined): string | null {
  if (!href) return null;
  try {
    const url = new URL(href.trim(), base ?? undefined);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

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
 * `base`. With `imagesAsLinks` (the web app, whose pages load nothing from elsewhere: an image
 * fetched from its site would tell the site who reads the archive), an image becomes a link to it.
 */
export function sanitizeFeedHtml(html: string | null | undefined, base: string | null, options: { imagesAsLinks?: boolean } = {}): string | null {
  if (html === null || html === undefined) return null;
  const transforms: Record<string, sanitizeHtml.Transformer> = Object.fromEntries(
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
  );
  if (options.imagesAsLinks) {
    transforms['img'] = (_tagName, attribs) => ({
      tagName: 'a', attribs: { href: absoluteUrl(attribs['src'], base) ?? '', class: 'image' }, text: `[image${attribs['alt'] ? `: ${attribs['alt']}` : ''}]`,
    });
    // Media would load from their site too: a link instead (a <source> inside keeps no address of its own).
    for (const tag of ['video', 'audio'] as const) {
      transforms[tag] = (_tagName, attribs) => ({ tagName: 'a', attribs: { href: absoluteUrl(attribs['src'], base) ?? '', class: 'image' }, text: `[${tag}]` });
    }
  }
  // A "<!" that opens no comment and no declaration closed by ">" is text: an HTML parser would
  // swallow it, and the rest of the value, as a bogus declaration.
  const unclosed = html.replace(/<!(?!--|\[CDATA\[)(?![^<>]*>)/gi, '&lt;!');
  const clean = sanitizeHtml(unclosed, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'figure', 'figcaption', 'picture', ...(options.imagesAsLinks ? [] : ['source', 'video', 'audio'])],
    allowedAttributes: {
      a: ['href', 'title', 'rel', ...(options.imagesAsLinks ? ['class'] : [])],
      img: ['src', 'alt', 'title', 'width', 'height'],
      source: ['src', 'type'],
      video: ['src', 'poster', 'controls'],
      audio: ['src', 'controls'],
      '*': ['lang', 'dir'],
    },
    // A data: URL is a document of its own (HTML, SVG with script): never a link; an inline image only.
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https', 'data'] },
    allowProtocolRelative: true,
    transformTags: transforms,
  }).trim();
  return clean === '' ? null : clean;
}

/** Plain text of a title-like field: tags dropped, entities decoded, whitespace collapsed. */
export function plainText(html: string | null | undefined): string | null {
  if (html === null || html === undefined) return null;
  const text = decodeHTML(sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} })).replace(/\s+/g, ' ').trim();
  return text === '' ? null : text;
}
