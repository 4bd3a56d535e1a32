/**
 * Every threshold of extraction in one place (issue #10), like trafilatura's settings: what each
 * decides, where its value came from and on which data it was looked at. One object is passed
 * down from `extractFromPage` and `learnFromSamples` (the `thresholds` of their options), so that a benchmark or a test can vary one without editing code.
 *
 * The data discipline (README, *How the article is found*): tune on news-2005 and the first half of sites-2012
 * (sites by name), report on news-2009, the article benchmark and the second half of sites-2012.
 * Values chosen before that split was made say so: they were looked at on data that is now a
 * report set, and are kept because nothing on the tuning sets argued for another value.
 */
export interface ExtractorOptions {
  // Locating the article.

  /**
   * Fewer words than this is no article (a node is enlarged, a wrapper's node invalid, an object
   * doubted). 25: a short news brief's first paragraph; first round, not tuned.
   */
  minWords: number;
  /**
   * A text leaf of at least this many words is running text (a sentence), shorter ones are
   * labels, links and headlines. 6: the shortest common sentence length in English news; first
   * round, not tuned.
   */
  sentenceWords: number;
  /** How many levels up a node too small to be an article looks for one with enough running text. First round. */
  enlargeLevels: number;
  /**
   * SIGFEED's block stands against the maximum-subsequence run when it holds at least this share
   * of the run's cleaned words; below, weak signifiers (a title that is only the site's name)
   * found a footer. First round, not tuned.
   */
  sigfeedShareOfRun: number;
  /**
   * An object shorter than `minWords` that keeps less than this share of its block's words is a
   * fragment of the block (cleaning dropped the article with the boilerplate beside it), and the
   * largest region cleaning dropped or the main run is taken instead (issue #54). Not tuned: "most
   * of the block dropped"; a short post keeps most of its block.
   */
  fragmentShare: number;
  /**
   * The captions of the pictures inside the article are part of its text when they hold at least
   * this share of its words: the pictures are then the story (a slideshow, a photo post). Below,
   * they describe a story told in prose and stay with their pictures in the HTML only (issue #69).
   * 0.5: the text is what the article is mostly made of; not tuned.
   */
  captionStoryShare: number;
  /** How many levels up an article split over sibling containers of one type is looked for. First round. */
  mergeLevels: number;
  /** A sibling container joins the article with at least this many words (not an empty slot). First round. */
  siblingMinWords: number;
  /**
   * A wrapper's node that is a column around the article: the SIGFEED block inside it is the
   * article's core when it holds at least this share of the node's running text. Not tuned: "most".
   */
  innerShare: number;
  /**
   * Widening that core to the article around it: the node chosen holds this share of the
   * wrapper node's running text, and adds short-leaf words (link lists, labels) of at most
   * `shortShare` of the core's. Chosen on news-2009 before the tuning/report split (0.8–0.95 and
   * 0.02–0.05 give the same result within 0.001 F1); news-2005 and sites-2012's tuning half agree.
   */
  containerShare: number;
  shortShare: number;
  /**
   * The per-page guard: a wrapper's object holding less than this share of the keywords the page
   * says about itself is doubted, and the single page's object computed too. "Loses most of what
   * the page says about itself" (issue #10); not tuned.
   */
  guardCoverage: number;
  /**
   * Maximum subsequence segmentation (mss-paper.txt, the simple baseline): each word scores
   * `mssWord`, each tag `mssTag`. The paper's values.
   */
  mssWord: number;
  mssTag: number;

  // Cleaning inside the article's node.

  /**
   * A container that names itself boilerplate (share, related, comments…) is kept when it holds
   * at least this share of the node's text: the article wrapper of an odd CMS. Not tuned: "most".
   */
  boilerplateShare: number;
  /**
   * Running text outside a comment thread that makes it an article's thread however long the
   * thread: a short article's worth (50 words). Chosen for the regression corpus
   * (test/unit/regression-pages.test.ts), not tuned on the benchmark sets.
   */
  articleBesideThread: number;
  /**
   * A list or box whose words are more than `linkListDensity` linked, and fewer than
   * `linkListWords`, is a link list (navigation, related stories). First round, Readability.js's
   * link-density idea; not tuned.
   */
  linkListDensity: number;
  linkListWords: number;
  /** A paragraph or heading at least this linked, of at most `teaserWords` words, is a teaser for another page ("READ MORE: …"). First round. */
  teaserDensity: number;
  teaserWords: number;
  /**
   * A container of at least this many cards, each a linked headline with at most `teaserWords`
   * words, holding most of its words, is a list of teasers for other pages (clean.ts). Three: two
   * cards can be a story's "previous / next"; the rule does not hang on the count. First round.
   */
  teaserListItems: number;
  /** A block of at most this many tokens, all of them dates, times and their words, is a time stamp. First round. */
  stampTokens: number;
  /**
   * A block of at most this many words, in parts that are each a byline, a date stamp, a reader
   * counter or a widget label, with a counter, a label or a time ago among them, is a post's meta
   * line (clean.ts): "Posted by Ann Lee on 18 Nov 2026 | 9 comments" is 10; three names, a full
   * date and two counters fit. Round 4, not tuned.
   */
  metaLineTokens: number;

  // Metadata.

  /** A heading longer than this (characters) is not the title. First round. */
  titleChars: number;
  /** A byline longer than this (characters) is prose, not a byline. First round. */
  bylineChars: number;
  /** A byline written out names its authors in at most this many words ("Ann Lee and Bo Chan" is 5; clean.ts). Round 4, not tuned. */
  bylineNameWords: number;
  /**
   * A heading is the declared title when at least `headingCoverage` of its words are the
   * declared title's and they make at least `declaredCoverage` of the declared title's words (the
   * declared title carries the site's name). First round, not tuned.
   */
  headingCoverage: number;
  declaredCoverage: number;
  /** An image this small (width or height attribute, px) is an icon, a spacer or a tracking pixel. First round. */
  iconPixels: number;
  /** Containers above the article's node whose content before it belongs to its header (headline, byline, date). Round 2, not tuned. */
  headerLevels: number;
  /** A page's description, to be a deck, has at least this many words. First round. */
  deckWords: number;
  /** An element of the deck slot's type holds at least this many words (not an empty slot). First round. */
  deckElementWords: number;
  /**
   * A description longer than `deckPrefixChars` matches a text that starts with its first
   * `deckPrefixShare` (descriptions are often the deck cut short with "…"). First round.
   */
  deckPrefixChars: number;
  deckPrefixShare: number;

  // Learning a wrapper (FOREST) and checking it.

  /** k of FOREST §3.1: signifiers per page. The paper's value. */
  signifiers: number;
  /** A block is template text when it recurs on at least this share of the samples (and two). First round, not tuned. */
  templateShare: number;
  /** The deck slot is the element type holding the page's description on at least this share of the samples (and two). First round. */
  deckSlotShare: number;
  /** A keyword at least this share of the samples' signifiers hold (and two pages) is the site's, not a page's. Not tuned: "half". */
  siteKeywordShare: number;
  /** A page belongs to the template whose structure signature it shares at least this much (Jaccard). First round. */
  templateMatch: number;
  /**
   * The leave-one-out check: two objects whose words agree this much (F1 over their bags of
   * words) are one article, give or take a caption or a deck. Not tuned: a fifth of the words
   * differing is well past what cleaning differences make, and well short of a different block.
   */
  agreement: number;
  /** Held-out pages checked at most: each costs a learning on the other samples and two extractions. */
  checkedPages: number;
  /**
   * The per-page guard (issue #69, guard.ts betterSupported): a wrapper's node holding less than
   * this share of the page's running text (its words in sentence-length leaves) gives way to the
   * single page's object that holds the wrapper's (`agreement` of its words) and an article's
   * worth (`minWords`) more, and as many of the page's own keywords — the lede box of another
   * layout, a gallery's first caption. Holding more, it gives way only when the words the single
   * page adds name the page's subject. Not tuned: "most of the page's running text is elsewhere".
   */
  wrapperRunShare: number;
  /**
   * The per-page guard's test of added words (guard.ts betterSupported): words one object adds
   * to the other belong to the article when they name the page's subject (its keywords) at this
   * share of the rate of the object they extend or more. Not tuned: "a quarter as often" — a
   * story's later paragraphs name its subject less than its lede, a list of other stories or a
   * thread of comments far less.
   */
  addedDensityShare: number;
  /**
   * A wrapper is adopted when it is worse than the single page on at most this share of the
   * held-out pages: the per-page guard catches an odd page, so one stray page of four does not
   * cost the template its wrapper. Not tuned.
   */
  worseShare: number;
}

export const EXTRACTOR_OPTIONS: Readonly<ExtractorOptions> = Object.freeze({
  minWords: 25,
  sentenceWords: 6,
  enlargeLevels: 3,
  sigfeedShareOfRun: 0.25,
  fragmentShare: 0.5,
  captionStoryShare: 0.5,
  mergeLevels: 2,
  siblingMinWords: 10,
  innerShare: 0.5,
  containerShare: 0.9,
  shortShare: 0.05,
  guardCoverage: 0.5,
  mssWord: 1,
  mssTag: -3.25,
  boilerplateShare: 0.5,
  articleBesideThread: 50,
  linkListDensity: 0.6,
  linkListWords: 120,
  teaserDensity: 0.9,
  teaserWords: 30,
  teaserListItems: 3,
  stampTokens: 10,
  metaLineTokens: 30,
  titleChars: 300,
  bylineChars: 120,
  bylineNameWords: 8,
  headingCoverage: 0.7,
  declaredCoverage: 0.3,
  iconPixels: 50,
  headerLevels: 3,
  deckWords: 10,
  deckElementWords: 5,
  deckPrefixChars: 40,
  deckPrefixShare: 0.9,
  signifiers: 10,
  templateShare: 0.4,
  deckSlotShare: 0.6,
  siteKeywordShare: 0.5,
  templateMatch: 0.5,
  agreement: 0.8,
  checkedPages: 5,
  wrapperRunShare: 0.5,
  addedDensityShare: 0.25,
  worseShare: 0.25,
});

const SHARES: ReadonlySet<keyof ExtractorOptions> = new Set<keyof ExtractorOptions>([
  'sigfeedShareOfRun', 'fragmentShare', 'captionStoryShare', 'innerShare', 'containerShare', 'shortShare', 'guardCoverage', 'boilerplateShare', 'linkListDensity', 'teaserDensity',
  'headingCoverage', 'declaredCoverage', 'deckPrefixShare', 'templateShare', 'deckSlotShare', 'siteKeywordShare', 'templateMatch', 'agreement', 'worseShare', 'wrapperRunShare', 'addedDensityShare',
]);
const SCORES: ReadonlySet<keyof ExtractorOptions> = new Set<keyof ExtractorOptions>(['mssWord', 'mssTag']);

/** The defaults with `overrides`, each checked: a share lies in [0, 1], a count is a whole number. */
export function extractorOptions(overrides: Partial<ExtractorOptions> = {}): ExtractorOptions {
  const options: ExtractorOptions = { ...EXTRACTOR_OPTIONS, ...overrides };
  for (const name of Object.keys(EXTRACTOR_OPTIONS) as Array<keyof ExtractorOptions>) {
    const value = options[name];
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`extractor option ${name}: expected a number, got ${String(value)}`);
    if (SHARES.has(name) && (value < 0 || value > 1)) throw new Error(`extractor option ${name}: expected a share between 0 and 1, got ${value}`);
    if (!SHARES.has(name) && !SCORES.has(name) && (!Number.isInteger(value) || value < 0)) throw new Error(`extractor option ${name}: expected a whole number, got ${value}`);
  }
  const unknown = Object.keys(overrides).filter((name) => !(name in EXTRACTOR_OPTIONS));
  if (unknown.length > 0) throw new Error(`unknown extractor option${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
  return options;
}

/**
 * Representation, not judgement: these shape what is stored (a template's structure signature,
 * an element type in a wrapper's path, a template block's key), so they are fixed — a page
 * extracted with others would not match the wrappers and templates already learned. Raise
 * EXTRACTOR_VERSION if one ever changes.
 */
export const STORED_FORMAT = Object.freeze({
  /** Levels of the page whose typed elements make its structure signature. First round. */
  signatureDepth: 8,
  /** Levels of parents that type an element without attributes of its own. First round. */
  typePathLength: 4,
  /** A block longer than this (words) is compared by its exact text only, not also by its shape. First round. */
  blockShapeWords: 12,
  /**
   * A block of at most `labelWords` unlinked words beside at least `labelLinks` times as many
   * linked ones is a labelled link list ("Related: …"), keyed by its label. First round.
   */
  labelWords: 4,
  labelLinks: 2,
});
