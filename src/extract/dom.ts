import { Element, isTag, isText, type AnyNode, type Document, type Text } from 'domhandler';
import { InsertionMode, Parser, Token, Tokenizer, TokenizerMode, type DefaultTreeAdapterMap, type TreeAdapter } from 'parse5';
import { adapter, type Htmlparser2TreeAdapterMap } from 'parse5-htmlparser2-tree-adapter';
import { decodeBody } from '../net/charset.js';
import { words } from './terms.js';
import { declaredLanguage, detectedLanguage, MAX_DETECT_CHARS, MIN_DETECT_CHARS, PROSE_CHARS } from './language.js';

/**
 * Page preparation (docs/architecture.md §5, FOREST §3.1 "From HTML pages to XML trees"): parse the tag
 * soup the way browsers do (parse5, the WHATWG algorithm — old pages with paragraphs inside
 * spans and tables inside paragraphs come out as readers saw them), into htmlparser2's tree
 * (domhandler) for fast walking; drop what is never content — scripts, styles, noscript, templates,
 * comments, what the page hides, and the like — and number every element in depth-first order (`dfs`), the
 * identifier FOREST falls back on for elements without attributes.
 *
 * parse5 8, whose tokenizer keeps text as slices of the input (parse5 7 appended it a character
 * at a time: the collector's main work on a page full of scripts), builds the tree through the
 * htmlparser2 adapter 7, on domhandler 5 (package.json `overrides` lets the adapter take parse5
 * 8): domhandler 6's nodes initialise their fields as class fields, which Node 20's V8 runs
 * about a millisecond a page slower. The trees are the same either way (all 608 pages of
 * ../shared/datasets).
 */

const DROPPED = new Set(['script', 'style', 'noscript', 'noembed', 'noframes', 'template', 'iframe', 'object', 'embed', 'svg', 'canvas', 'link', 'meta', 'title', 'button', 'input', 'select', 'textarea', 'head']);

/** What a page declares about itself (its title, `<meta>`, `<link>` and JSON-LD): read for metadata, never content. */
const DECLARATIONS = new Set(['title', 'meta', 'link']);
/**
 * Of those, the ones read in the body too: the title (`document.title` is the first `<title>`
 * anywhere) and JSON-LD (which search engines read anywhere on the page). A `<meta>` or `<link>` counts
 * only in the head, as search engines take them: a canonical link in a comment must not
 * merge one article into another.
 */
const BODY_DECLARATIONS = new Set(['title', 'script']);
const isDeclaration = (element: Element) =>
  DECLARATIONS.has(element.name) || (element.name === 'script' && element.attribs['type']?.trim().toLowerCase() === 'application/ld+json');

/** A style sheet or a script other than JSON-LD: code, whose text the tree does not keep. */
const holdsCode = (element: Element): element is Element & { name: 'script' | 'style' } => element.name === 'style' || (element.name === 'script' && !isDeclaration(element));

const INVISIBLE = /(^|;)\s*(display\s*:\s*none|visibility\s*:\s*hidden)\s*(!important\s*)?(;|$)/i;

/**
 * What no reader sees: an element with the `hidden` attribute or an inline style that hides it
 * (a gallery's other slides and their captions, a collapsed menu, a print-only copy). A script
 * may show it later, one part at a time; the article is what the page shows. Readability.js
 * leaves the same elements out (`_isProbablyVisible`).
 */
export function isHidden(element: Element): boolean {
  return element.attribs['hidden'] !== undefined || (element.attribs['style'] !== undefined && INVISIBLE.test(element.attribs['style']));
}

/** Never content: a dropped tag (scripts, forms…) or a hidden element. */
export function isDropped(element: Element): boolean {
  return DROPPED.has(element.name) || isHidden(element);
}

export interface TextLeaf {
  node: Text;
  /** Words of the leaf (lower case), for n-gram matching and counting. */
  words: string[];
  element: Element;
}

export interface PreparedPage {
  document: Document;
  /** Elements of the body in depth-first order: `elements[dfs]`. */
  elements: Element[];
  dfs: Map<Element, number>;
  /** Depth from the root element (html = 1), by dfs number: `depths[dfs]` (depthOf). */
  depths: number[];
  /** Non-empty text leaves, in document order. */
  leaves: TextLeaf[];
  /**
   * The page's declarations (`<title>`, `<meta>`, `<link>`, JSON-LD scripts): those of the head,
   * then a title and JSON-LD left in the body. Pages often carry them after their content began —
   * an archive's toolbar or a template's markup before them ends the head, and the parser puts
   * them in the body. On ../shared/datasets, 12 of 608 pages have their only `<title>` in the body,
   * 39 some JSON-LD.
   */
  declarations: Element[];
  url: string | null;
  /** The language the page declares, else the one its text is in (language.ts): it sets the rules of its terms (terms.ts). */
  language: string | null;
}

/**
 * parse5's htmlparser2 tree adapter, building a leaner tree. A page is ten to thirty thousand
 * nodes, and V8's young-generation collector copies every object of a tree still in use (a
 * learning holds ten trees) — twice, before it moves it to the old generation. So:
 *
 * - No namespace and prefix records beside each element's attributes: only a serializer of
 *   foreign content reads them; nothing here serializes with parse5, and domhandler reads them
 *   only when present.
 * - Attributes in an object with fast properties (a class of its own) rather than a dictionary
 *   (`Object.create(null)`): four times smaller. Its prototype is null, as the dictionary's was,
 *   so that an attribute named `constructor` or `__proto__` is read and written as any other.
 * - A text node's runs joined once: parse5 hands text over in runs cut wherever whitespace starts
 *   or ends — a paragraph of a hundred words is two hundred runs (on two sites of ../shared/datasets,
 *   four runs in five extend a text node; in the body, SkimmingTokenizer below now cuts them only at
 *   newlines, references and NULs) — and appending each to the node's string left a chain of
 *   them that lived as long as the tree. The runs of the node being written are kept in a list
 *   and joined when text goes elsewhere; parse5 never reads a text node's content back.
 * - Child lists cut to their length when an element is closed: an array grown by `push` holds
 *   sixteen places from its first child on (140 bytes of nothing for the many elements with one).
 * - Comments without their text, which nothing reads (the node stays: it separates text nodes, as
 *   in the DOM).
 * - No code of scripts (JSON-LD aside: a declaration) and style sheets: it is not text a reader
 *   sees, yet counted as words it made a block holding a script look like prose — an ad slot of a
 *   label and the ad server's script was kept in an article.
 *
 * Together, the ten pages of a learning on everywhereist.com (sites-2012, the slowest to learn)
 * hold 8 MB instead of 14, and nothing a reader sees changed: a hash of the
 * objects and wrappers extracted from every page of ../shared/datasets is unchanged.
 */
type Attribute = Parameters<TreeAdapter<DefaultTreeAdapterMap>['adoptAttributes']>[1][number];
class Attributes {
  [name: string]: string;
}
Object.setPrototypeOf(Attributes.prototype, null);

function leanTreeBuilder(): { treeAdapter: TreeAdapter<Htmlparser2TreeAdapterMap>; finish: () => void } {
  let open: Text | null = null;
  const runs: string[] = [];
  const finish = () => {
    if (open && runs.length > 1) open.data = runs.join('');
    open = null;
    runs.length = 0;
  };
  const treeAdapter: TreeAdapter<Htmlparser2TreeAdapterMap> = {
    ...adapter,
    createElement(tagName: string, namespaceURI, attributes: Attribute[]) {
      const attribs = new Attributes();
      for (const attribute of attributes) attribs[attribute.name] = attribute.value;
      const element = new Element(tagName, attribs, []);
      element.namespace = namespaceURI;
      return element;
    },
    insertText(parent: Element | Document, text: string) {
      if (isTag(parent) && holdsCode(parent)) return;
      const last = parent.children.at(-1);
      if (last !== undefined && last === open) {
        runs.push(text);
        return;
      }
      finish();
      if (last !== undefined && isText(last)) {
        runs.push(last.data, text);
        open = last;
        return;
      }
      const node = adapter.createTextNode(text);
      adapter.appendChild(parent, node);
      runs.push(text);
      open = node;
    },
    insertTextBefore(parent: Element | Document, text: string, reference) {
      finish();
      adapter.insertTextBefore(parent, text, reference);
    },
    createCommentNode() {
      return adapter.createCommentNode('');
    },
    onItemPop(element: Element) {
      // From sixteen children on, the array grows by half its length: what it holds is most of it.
      if (element.children.length > 0 && element.children.length < 16) element.children = element.children.slice();
    },
    adoptAttributes(recipient: Element, attributes: Attribute[]) {
      for (const attribute of attributes) if (recipient.attribs[attribute.name] === undefined) recipient.attribs[attribute.name] = attribute.value;
    },
  };
  return { treeAdapter, finish };
}

/** Characters that end a raw-text end tag's name (the tokenizer reads a CR as an LF). */
const TAG_NAME_END = new Set(['\t', '\n', '\f', '\r', ' ', '/', '>']);

/**
 * Where the raw text of a `<script>` or `<style>` that starts at `from` ends, or -1 when the
 * tokenizer must read it code point by code point. The end is the first `</name` (any case)
 * followed by whitespace, `/` or `>`: the tokenizer's "appropriate end tag" (WHATWG HTML
 * §13.2.5.12–13 and 15–17). A style sheet has no other way out. A script does: `<!--` puts the
 * tokenizer in the script data escaped states, where `<script` … `</script>` nests, so a
 * script holding `<!--` before that end tag is left to the tokenizer (old pages' `<!-- //-->`).
 * With no such end tag the text runs to the end of the input, which the tokenizer also reads.
 */
export function rawTextEnd(html: string, from: number, name: 'script' | 'style'): number {
  const closing = `</${name}`;
  for (let at = indexOfFold(html, closing, from); at >= 0; at = indexOfFold(html, closing, at + 1)) {
    const next = html[at + closing.length];
    if (next === undefined || !TAG_NAME_END.has(next)) continue;
    // Only the script's own text is searched (a slice shares the page's characters): looking back
    // from the end tag would read on to the page's start for each script without a comment.
    if (name === 'script' && html.slice(from, at).includes('<!--')) return -1;
    return at;
  }
  return -1;
}

/** `indexOf` that ignores ASCII case in `html` (`lowerNeedle` is lower case). */
function indexOfFold(html: string, lowerNeedle: string, from: number): number {
  for (let at = html.indexOf('</', from); at >= 0; at = html.indexOf('</', at + 2)) {
    let i = 2;
    while (i < lowerNeedle.length && (html.charCodeAt(at + i) | 0x20) === lowerNeedle.charCodeAt(i)) i++;
    if (i === lowerNeedle.length) return at;
  }
  return -1;
}

/** Whitespace to the tokenizer but for LF, which every run stops at (a CR never reaches it: the input stream makes it an LF). */
const SPACES = [0x20, 0x09, 0x0c];
/**
 * What ends a run the tokenizer may read at once, by the state it is read in: a code unit whose
 * bit is set here is one the state treats otherwise than "append it" (WHATWG HTML §13.2.5.1 data,
 * §13.2.5.36–37 quoted attribute values, §13.2.5.45 comment), or one the input stream
 * preprocesses (a CR or LF: newline normalisation and line counting; a surrogate: pairing).
 */
const STOP = { always: 0x80, text: 0x01, whitespace: 0x02, doubleQuoted: 0x04, singleQuoted: 0x08, comment: 0x10, tagName: 0x20, attributeName: 0x40, bodyText: 0x100 } as const;
const STOPS = (() => {
  const stops = new Uint16Array(0x10000);
  const set = (bit: number, ...units: number[]) => { for (const unit of units) stops[unit]! |= bit; };
  // Every state stops at NUL, CR, LF and surrogates.
  stops.fill(0xffff, 0xd800, 0xe000);
  set(0xffff, 0x00, 0x0d, 0x0a);
  set(STOP.text, 0x3c /* < */, 0x26 /* & */, ...SPACES);
  set(STOP.bodyText, 0x3c, 0x26);
  for (let unit = 0; unit < 0x10000; unit++) if (!SPACES.includes(unit)) stops[unit]! |= STOP.whitespace;
  set(STOP.doubleQuoted, 0x22 /* " */, 0x26);
  set(STOP.singleQuoted, 0x27 /* ' */, 0x26);
  set(STOP.comment, 0x2d /* - */, 0x3c);
  // Names end at whitespace, `/` and `>` (and an attribute's at `=`; quotes and `<` in one are
  // errors, left to the state); ASCII capitals are the state's to lower-case.
  for (let unit = 0x41; unit <= 0x5a; unit++) set(STOP.tagName | STOP.attributeName, unit);
  set(STOP.tagName | STOP.attributeName, ...SPACES, 0x2f /* / */, 0x3e /* > */);
  set(STOP.attributeName, 0x3d /* = */, 0x22, 0x27, 0x3c);
  return stops;
})();

/**
 * parse5's tokenizer, reading a run of text, of an attribute value, of a comment or of a name at
 * once instead of one code point per turn of its state machine. Text, values and comments are
 * appended as slices of the input (parse5 8 keeps a token's characters as `[runStart, runEnd)`
 * of it): after the state appended the code point it read, the run is extended over every code
 * unit that state would append in turn, up to the first it treats otherwise (STOPS), and the
 * input's position set to the last one — what appending them one by one leaves behind. A name
 * gets the same units as one string (none of them a capital, which the state lower-cases).
 * Outside the body, text stays cut where whitespace starts or ends, as the tree builder needs it
 * there (_emitCodePoint). Runs never cross a newline or a surrogate, so the input stream's line
 * count and pairing stay exact; they never start from one either.
 *
 * On the 608 pages of ../shared/datasets the trees are the same as parse5's own (and on crafted
 * edge cases, test/unit/extract.test.ts). In one process, alternated with the parser before it
 * (which already read past scripts' code): parsing 4.4–5.1 against 6.2–7.3 ms a page,
 * extraction all in 14.85 against 17.59 ms (docs/measurements.md, *At scale*).
 */
class SkimmingTokenizer extends Tokenizer {
  constructor(options: ConstructorParameters<typeof Tokenizer>[0], private readonly parser: Parser<Htmlparser2TreeAdapterMap>) {
    super(options, parser);
  }

  protected override _stateData(cp: number): void {
    super._stateData(cp);
    // A whitespace token becomes a character token only through _emitCodePoint.
    const type = this.currentCharacterToken?.type;
    this.skim(cp, type === Token.TokenType.WHITESPACE_CHARACTER ? STOP.whitespace : this.joinsText() ? STOP.bodyText : STOP.text);
  }

  /**
   * In the body, text and the whitespace around it go into one character token: the tree builder
   * gives both kinds of token the same treatment there (WHITESPACE_CHARACTER and CHARACTER both
   * reopen the formatting elements and insert the text, WHATWG HTML §13.2.6.4.7), but for the
   * `frameset-ok` flag that text clears, and a token holding text clears it all the same. A
   * paragraph of a hundred words is then one token instead of two hundred. Not right after a
   * `<pre>`, a `<listing>` or a `<textarea>`, whose first newline the builder drops only from a
   * whitespace token; not in foreign content, tables or anywhere else, whose rules differ.
   */
  protected override _emitCodePoint(cp: number): void {
    const token = this.currentCharacterToken;
    if (token === null || cp === 0 || token.type === Token.TokenType.NULL_CHARACTER || !this.joinsText()) return super._emitCodePoint(cp);
    if (token.type === Token.TokenType.WHITESPACE_CHARACTER && cp !== 0x0a && !SPACES.includes(cp)) token.type = Token.TokenType.CHARACTER;
    this._extendRun(cp);
  }

  private joinsText(): boolean {
    const mode = this.parser.insertionMode;
    return (mode === InsertionMode.IN_BODY || mode === InsertionMode.IN_CELL || mode === InsertionMode.IN_CAPTION || mode === InsertionMode.IN_TEMPLATE)
      && !this.inForeignNode && !this.parser.skipNextNewLine;
  }

  protected override _stateAttributeValueDoubleQuoted(cp: number): void {
    super._stateAttributeValueDoubleQuoted(cp);
    this.skim(cp, STOP.doubleQuoted);
  }

  protected override _stateAttributeValueSingleQuoted(cp: number): void {
    super._stateAttributeValueSingleQuoted(cp);
    this.skim(cp, STOP.singleQuoted);
  }

  protected override _stateComment(cp: number): void {
    super._stateComment(cp);
    this.skim(cp, STOP.comment);
  }

  protected override _stateTagName(cp: number): void {
    super._stateTagName(cp);
    const token = this.currentToken;
    if (token?.type === Token.TokenType.START_TAG || token?.type === Token.TokenType.END_TAG) token.tagName += this.skimmedName(cp, STOP.tagName);
  }

  protected override _stateAttributeName(cp: number): void {
    super._stateAttributeName(cp);
    this.currentAttr.name += this.skimmedName(cp, STOP.attributeName);
  }

  /** After the state appended `cp`: append the code units that follow it up to the first of `stop`. */
  private skim(cp: number, stop: number): void {
    const end = this.skimmed(cp, stop);
    if (end < 0) return;
    this.runEnd = end;
    this.preprocessor.pos = end - 1;
  }

  /** A name's code units after `cp`, which the state appended, up to the first of `stop`, read. */
  private skimmedName(cp: number, stop: number): string {
    const end = this.skimmed(cp, stop);
    if (end < 0) return '';
    const name = this.preprocessor.html.slice(this.preprocessor.pos + 1, end);
    this.preprocessor.pos = end - 1;
    // A slice of 13 or more characters would share the page's string and keep it alive (see _flushRun).
    return name.length < 13 ? name : ` ${name}`.slice(1);
  }

  /** Where a skim after `cp` ends (exclusive), or -1 when there is nothing to skim. */
  private skimmed(cp: number, stop: number): number {
    // Not from the end of input, a NUL (replaced), a newline or a surrogate, nor from a code unit
    // the state did not append (it left the state, or started a reference).
    if (cp < 0 || cp > 0xffff || (STOPS[cp]! & (STOP.always | stop)) !== 0) return -1;
    const { html, pos } = this.preprocessor;
    let at = pos + 1;
    while (at < html.length && (STOPS[html.charCodeAt(at)]! & stop) === 0) at++;
    return at === pos + 1 ? -1 : at;
  }
}

/**
 * parse5's tree construction on the skimming tokenizer, reading past the code of scripts and
 * style sheets instead of tokenizing it: the tree builder drops that text anyway (`insertText`
 * above), and on the article benchmark's pages it is half of all characters, tokenized one code
 * point at a time — a third of the parse. The tokenizer is moved to the end tag at the moment the
 * tree builder switches it to raw text for the element (the only moment the two agree that the
 * text is a script's or a style sheet's: not inside `<svg>`, a `<textarea>` or a comment), and
 * reads the end tag itself. JSON-LD, which is read, is tokenized as before. The trees are the
 * same as a plain parse's: on crafted edge cases and synthetic pages (test/unit/extract.test.ts),
 * and on all 608 pages of ../shared/datasets.
 */
class SkimmingParser extends Parser<Htmlparser2TreeAdapterMap> {
  constructor(...args: ConstructorParameters<typeof Parser<Htmlparser2TreeAdapterMap>>) {
    super(...args);
    this.tokenizer = new SkimmingTokenizer(this.options, this);
  }

  override _switchToTextParsing(token: Token.TagToken, state: (typeof TokenizerMode)[keyof typeof TokenizerMode]): void {
    super._switchToTextParsing(token, state);
    const element = this.openElements.current;
    if (!(element instanceof Element) || !holdsCode(element)) return;
    if (state !== (element.name === 'script' ? TokenizerMode.SCRIPT_DATA : TokenizerMode.RAWTEXT)) return;
    const input = this.tokenizer.preprocessor;
    const end = rawTextEnd(input.html, input.pos + 1, element.name);
    if (end < 0) return;
    // The next code point read is the end tag's `<`. The last one read was the start tag's `>`,
    // so no CR or line end is pending across the gap.
    input.pos = end - 1;
  }
}

export function parseHtml(input: Uint8Array | string, contentType?: string | null, options: { plain?: boolean } = {}): Document {
  const html = typeof input === 'string' ? input : decodeBody(input, contentType ?? 'text/html').text;
  const { treeAdapter, finish } = leanTreeBuilder();
  const parserOptions = { treeAdapter, scriptingEnabled: false };
  const document = options.plain ? Parser.parse(html, parserOptions) : SkimmingParser.parse(html, parserOptions);
  finish();
  return document;
}

export function preparePage(input: Uint8Array | string | Document, options: { url?: string | null; contentType?: string | null } = {}): PreparedPage {
  const document = typeof input === 'object' && 'type' in input && (input as Document).type === 'root' ? (input as Document) : parseHtml(input as Uint8Array | string, options.contentType);
  const root = document.children.find((child): child is Element => isTag(child) && child.name === 'html');
  const page: PreparedPage = { document, elements: [], dfs: new Map(), depths: [], leaves: [], declarations: [], url: options.url ?? null, language: null };
  const inBody: Element[] = [];
  const declared = (node: Element) => {
    if (isDeclaration(node)) page.declarations.push(node);
    else for (const child of node.children) if (isTag(child)) declared(child);
  };
  const visit = (node: AnyNode, depth: number) => {
    if (isTag(node)) {
      if (node.name === 'head') {
        declared(node);
        return;
      }
      if (isDropped(node)) {
        if (isDeclaration(node) && BODY_DECLARATIONS.has(node.name)) inBody.push(node);
        return;
      }
      page.dfs.set(node, page.elements.length);
      page.elements.push(node);
      page.depths.push(depth);
      for (const child of node.children) visit(child, depth + 1);
      return;
    }
    if (isText(node) && node.parent && isTag(node.parent)) {
      const leafWords = words(node.data);
      if (leafWords.length > 0) page.leaves.push({ node, words: leafWords, element: node.parent });
      return;
    }
    if (node.type === 'root') for (const child of (node as Document).children) visit(child, depth);
  };
  visit(document, 1);
  page.declarations.push(...inBody);
  page.language = declaredLanguage(root, page.declarations) ?? detectedLanguage(languageSample(page));
  return page;
}

/**
 * What franc reads to tell the page's language: its prose — leaves long enough to be a sentence
 * (menus, labels, dates and bylines are shorter and often in English on any page) — up to
 * MAX_DETECT_CHARS; the page's text in order when it has too little prose.
 */
function languageSample(page: PreparedPage): string {
  const prose = leafText(page, PROSE_CHARS);
  return prose.length >= MIN_DETECT_CHARS ? prose : leafText(page, 0);
}

/** The page's leaves of `shortest` characters or more, in order, until MAX_DETECT_CHARS is passed. */
function leafText(page: PreparedPage, shortest: number): string {
  let text = '';
  for (const leaf of page.leaves) {
    if (leaf.node.data.length < shortest) continue;
    text += `${leaf.node.data} `;
    if (text.length > MAX_DETECT_CHARS) break;
  }
  return text;
}

/** An element's depth from the root element (html = 1); undefined for one dropped in preparation. */
export function depthOf(page: PreparedPage, element: Element): number | undefined {
  const dfs = page.dfs.get(element);
  return dfs === undefined ? undefined : page.depths[dfs];
}

/** Text of an element with a line break between blocks (paragraphs, headings, list items …). */
export const BLOCK_TAGS = new Set([
  'p', 'div', 'section', 'article', 'main', 'header', 'footer', 'aside', 'nav', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'dl', 'dt', 'dd',
  'blockquote', 'pre', 'table', 'tr', 'td', 'th', 'tbody', 'thead', 'figure', 'figcaption', 'form', 'fieldset', 'address', 'hr', 'br', 'center',
]);

export function textOf(root: AnyNode, skip?: (element: Element) => boolean): string {
  const parts: string[] = [];
  let line = '';
  const flush = () => {
    const trimmed = line.replace(/\s+/g, ' ').trim();
    if (trimmed) parts.push(trimmed);
    line = '';
  };
  const visit = (node: AnyNode) => {
    if (isText(node)) {
      line += node.data;
      return;
    }
    if (node.type === 'root') {
      for (const child of (node as Document).children) visit(child);
      return;
    }
    if (!isTag(node)) return;
    if (isDropped(node) || skip?.(node)) return;
    const block = BLOCK_TAGS.has(node.name);
    if (block) flush();
    for (const child of node.children) visit(child);
    if (block) flush();
  };
  visit(root);
  flush();
  return parts.join('\n');
}

/** Whether an element below `element` passes `test`. */
export function holdsElement(element: Element, test: (descendant: Element) => boolean): boolean {
  return element.children.some((child) => isTag(child) && (test(child) || holdsElement(child, test)));
}

/** The element's parent element, or null at the top of the tree. */
export function parentElement(node: AnyNode): Element | null {
  return node.parent && isTag(node.parent) ? node.parent : null;
}

/** The deepest element holding both `a` and `b` (`a` itself when they share none). */
export function lowestCommonAncestor(a: Element, b: Element): Element {
  const seen = new Set<Element>();
  for (let node: Element | null = a; node; node = parentElement(node)) seen.add(node);
  for (let node: Element | null = b; node; node = parentElement(node)) if (seen.has(node)) return node;
  return a;
}

/** Whether `node` is `container` or inside it; false when an element of `stopAt` comes first. */
export function isInside(node: Element, container: Element, stopAt?: ReadonlySet<Element>): boolean {
  for (let element: Element | null = node; element; element = parentElement(element)) {
    if (stopAt?.has(element)) return false;
    if (element === container) return true;
  }
  return false;
}
