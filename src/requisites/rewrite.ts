import { generate } from 'css-tree';
import render from 'dom-serializer';
import { Element, Text, type ChildNode } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { absolute, eachCssUrl, ICON_RELS, LAZY_SRC, LAZY_SRCSET, parsedCss, srcsetCandidates } from './discover.js';
import type { RequisiteKind } from '../archive/store.js';

/**
 * A capture made replayable (issue #67): every URL through which the page asks for a requisite
 * is rewritten to the archive's copy (`link`), so that a browser showing the capture asks the
 * capture origin and nothing else — as pywb rewrites a page for its `im_`/`cs_` routes. The
 * archived bytes are untouched (Memento's `id_` serves them as fetched); this is a rendering.
 * No script runs at replay, so the lazy-loading attributes' images become the images' sources.
 * `<base href>` is removed: it would send relative URLs, the rewritten ones among them, to the
 * live site.
 */

/** Where the archive serves `url` (absolute) as a requisite of `kind`. */
export type RequisiteLink = (url: string, kind: RequisiteKind) => string;

/**
 * The HTML of a page at `pageUrl`, its requisites' URLs rewritten through `link`. `kept`: the
 * URLs whose bytes the capture kept, when it lists its requisites — a `srcset` then offers only
 * those (a browser picks one candidate for its screen; one Forest did not keep would be a broken
 * image), and falls back to `src` when it has none.
 */
export function replayableHtml(html: string, pageUrl: string, link: RequisiteLink, options: { kept?: ReadonlySet<string> | null } = {}): string {
  const kept = options.kept && options.kept.size > 0 ? options.kept : null;
  const document = parseDocument(html, { decodeEntities: true, lowerCaseAttributeNames: true });
  let base = pageUrl;
  const rewrite = (value: string | undefined, kind: RequisiteKind): string | undefined => {
    if (value === undefined) return undefined;
    const url = absolute(value, base);
    return url === null ? value : link(url, kind);
  };
  const rewriteSrcset = (value: string): string => srcsetCandidates(value)
    .filter((candidate) => kept === null || kept.has(absolute(candidate.url, base) ?? ''))
    .map((candidate) => `${rewrite(candidate.url, 'image')} ${candidate.descriptors}`.trim()).join(', ');
  const visit = (nodes: ChildNode[], media: 'video' | 'audio' | null) => {
    for (const node of [...nodes]) {
      if (!(node instanceof Element)) continue;
      const attributes = node.attribs;
      const name = node.name.toLowerCase();
      if (name === 'base') {
        if (attributes['href'] && base === pageUrl) base = absolute(attributes['href'], pageUrl) ?? pageUrl;
        node.parent?.children.splice(node.parent.children.indexOf(node), 1);
        continue;
      }
      if (attributes['style']) attributes['style'] = replayableCss(attributes['style'], base, link, { declarations: true });
      if (attributes['background']) attributes['background'] = rewrite(attributes['background'], 'image')!;
      if (name === 'img' || name === 'source' || name === 'image') {
        if (name === 'source' && media !== null) {
          if (attributes['src']) attributes['src'] = rewrite(attributes['src'], 'media')!;
        } else {
          // No script at replay: what a lazy-loading script would have put in src and srcset goes there now.
          for (const [key, value] of Object.entries(attributes)) {
            if (LAZY_SRC.test(key) && value.trim() && absolute(value, base) !== null) attributes['src'] = value;
            else if (LAZY_SRCSET.test(key) && value.trim()) attributes['srcset'] = value;
          }
          for (const key of ['src', 'href', 'xlink:href']) if (attributes[key]) attributes[key] = rewrite(attributes[key], 'image')!;
          if (attributes['srcset']) {
            const srcset = rewriteSrcset(attributes['srcset']);
            if (srcset) attributes['srcset'] = srcset;
            else delete attributes['srcset'];
          }
          if (attributes['loading'] === 'lazy') delete attributes['loading'];
        }
      } else if (name === 'video' || name === 'audio') {
        if (attributes['poster']) attributes['poster'] = rewrite(attributes['poster'], 'image')!;
        if (attributes['src']) attributes['src'] = rewrite(attributes['src'], 'media')!;
      } else if (name === 'track') {
        if (attributes['src']) attributes['src'] = rewrite(attributes['src'], 'media')!;
      } else if (name === 'link' && attributes['href']) {
        const rels = (attributes['rel'] ?? '').toLowerCase().split(/\s+/);
        if (rels.includes('stylesheet')) attributes['href'] = rewrite(attributes['href'], 'style')!;
        else if (rels.some((rel) => ICON_RELS.has(rel))) attributes['href'] = rewrite(attributes['href'], 'icon')!;
        else if (rels.includes('preload')) attributes['href'] = rewrite(attributes['href'], attributes['as'] === 'style' ? 'style' : attributes['as'] === 'font' ? 'font' : 'image')!;
      } else if (name === 'style') {
        for (const child of node.children) if (child instanceof Text) child.data = replayableCss(child.data, base, link);
      }
      visit(node.children, name === 'video' || name === 'audio' ? name : media);
    }
  };
  visit(document.children, null);
  return render(document, { decodeEntities: false, encodeEntities: 'utf8' });
}

/** CSS at `sheetUrl` with its `url()`s and `@import`s rewritten through `link` (fonts inside @font-face as fonts). */
export function replayableCss(css: string, sheetUrl: string, link: RequisiteLink, options: { declarations?: boolean } = {}): string {
  const ast = parsedCss(css, options.declarations ?? false);
  if (!ast) return css;
  eachCssUrl(ast, (holder, kind) => {
    const url = absolute(holder.value, sheetUrl);
    if (url !== null) holder.value = link(url, kind);
  });
  return generate(ast);
}
