import { isCDATA, isTag, isText, type ChildNode } from 'domhandler';
import { decodeHTML } from 'entities';
import { parseDocument } from 'htmlparser2';

/**
 * A feed document as a tree in document order, with namespaces resolved. feedparser (xml-feed.ts)
 * reads most fields well, but it keeps no order inside an element and files elements under the
 * prefix the document happened to use, so an XHTML title, a base64 body, `xhtml:body` or a Dublin
 * Core element under an unusual prefix are lost. This tree is what those fields are read from.
 *
 * htmlparser2 in XML mode: lenient (unclosed tags recovered), and it reads no DTD, so no entity
 * is ever expanded from one. Entities are decoded here, once: XML's five and, leniently, HTML's
 * named ones (feeds use &nbsp; without declaring it); CDATA is left as written.
 */

export const NS = {
  atom10: 'http://www.w3.org/2005/Atom',
  atom03: 'http://purl.org/atom/ns#',
  rss10: 'http://purl.org/rss/1.0/',
  rss090: 'http://my.netscape.com/rdf/simple/0.9/',
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  dc: 'http://purl.org/dc/elements/1.1/',
  dcterms: 'http://purl.org/dc/terms/',
  content: 'http://purl.org/rss/1.0/modules/content/',
  xhtml: 'http://www.w3.org/1999/xhtml',
  itunes: 'http://www.itunes.com/dtds/podcast-1.0.dtd',
  media: 'http://search.yahoo.com/mrss/',
  xml: 'http://www.w3.org/XML/1998/namespace',
} as const;

export interface XmlAttribute {
  ns: string;
  name: string;
  value: string;
}

export interface XmlElement {
  /** The namespace URI ('' for none). */
  ns: string;
  /** The local name, lower-cased (feeds in the wild disagree on case). */
  name: string;
  attributes: XmlAttribute[];
  children: XmlNode[];
  /** The element's xml:base, resolved against its parent's (and the document's URL). */
  base: string | null;
}

export type XmlNode = XmlElement | string;

/** Deeper than this, a document is hostile or broken: what is below is ignored (no stack overflow). */
const MAX_DEPTH = 256;

function resolveUrl(href: string, base: string | null): string | null {
  try {
    return new URL(href.trim(), base ?? undefined).href;
  } catch {
    return base;
  }
}

function build(node: ChildNode, scope: ReadonlyMap<string, string>, base: string | null, depth: number): XmlNode | null {
  if (isText(node)) return decodeHTML(node.data);
  if (isCDATA(node)) return node.children.map((child) => (isText(child) ? child.data : '')).join('');
  if (!isTag(node) || depth > MAX_DEPTH) return null;
  const raw = Object.entries(node.attribs).map(([qualified, value]) => ({ qualified, value: decodeHTML(value) }));
  let inner: Map<string, string> | null = null;
  for (const { qualified, value } of raw) {
    if (qualified === 'xmlns' || qualified.startsWith('xmlns:')) (inner ??= new Map(scope)).set(qualified === 'xmlns' ? '' : qualified.slice(6), value.trim());
  }
  const names = inner ?? scope;
  const split = (qualified: string, element: boolean): { ns: string; name: string } => {
    const colon = qualified.indexOf(':');
    const prefix = colon > 0 ? qualified.slice(0, colon) : '';
    const local = colon > 0 ? qualified.slice(colon + 1) : qualified;
    if (prefix === 'xml') return { ns: NS.xml, name: local.toLowerCase() };
    // Unprefixed attributes are in no namespace; unprefixed elements in the default one.
    if (!prefix && !element) return { ns: '', name: local.toLowerCase() };
    return { ns: names.get(prefix) ?? (prefix ? `urn:undeclared:${prefix}` : ''), name: local.toLowerCase() };
  };
  const attributes = raw.filter(({ qualified }) => qualified !== 'xmlns' && !qualified.startsWith('xmlns:')).map(({ qualified, value }) => ({ ...split(qualified, false), value }));
  const xmlBase = attributes.find((attribute) => attribute.ns === NS.xml && attribute.name === 'base');
  const here = xmlBase ? resolveUrl(xmlBase.value, base) : base;
  const children: XmlNode[] = [];
  for (const child of node.children) {
    const built = build(child, names, here, depth + 1);
    if (built !== null) children.push(built);
  }
  return { ...split(node.name, true), attributes, children, base: here };
}

/** The document's root element, or null when there is none. */
export function readXmlTree(xml: string, url: string | null): XmlElement | null {
  const document = parseDocument(xml, { xmlMode: true, decodeEntities: false });
  const scope = new Map<string, string>();
  for (const node of document.children) {
    if (!isTag(node)) continue;
    const root = build(node, scope, url, 0);
    return typeof root === 'string' ? null : root;
  }
  return null;
}

export const isElement = (node: XmlNode): node is XmlElement => typeof node !== 'string';

/** Child elements named `name` in one of `namespaces`. */
export function childrenNamed(parent: XmlElement, namespaces: readonly string[], name: string): XmlElement[] {
  return parent.children.filter((child): child is XmlElement => isElement(child) && child.name === name && namespaces.includes(child.ns));
}

export function childNamed(parent: XmlElement, namespaces: readonly string[], name: string): XmlElement | undefined {
  return childrenNamed(parent, namespaces, name)[0];
}

export function attributeOf(element: XmlElement, name: string, ns = ''): string | null {
  return element.attributes.find((attribute) => attribute.name === name && attribute.ns === ns)?.value ?? null;
}

/** All the text inside `element`, markup dropped. */
export function textOf(element: XmlElement): string {
  return element.children.map((child) => (isElement(child) ? textOf(child) : child)).join('');
}

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
export const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (text: string) => escapeText(text).replace(/"/g, '&quot;');

/**
 * The nodes as HTML: XHTML elements become HTML elements of the same name (prefixes dropped);
 * elements of other vocabularies give only their text. The result is sanitized by the caller.
 */
export function xhtmlToHtml(nodes: readonly XmlNode[]): string {
  return nodes.map((node) => {
    if (!isElement(node)) return escapeText(node);
    if (node.ns !== NS.xhtml) return xhtmlToHtml(node.children);
    const attributes = node.attributes.filter((attribute) => attribute.ns === '').map((attribute) => ` ${attribute.name}="${escapeAttribute(attribute.value)}"`).join('');
    return VOID.has(node.name) ? `<${node.name}${attributes}>` : `<${node.name}${attributes}>${xhtmlToHtml(node.children)}</${node.name}>`;
  }).join('');
}
