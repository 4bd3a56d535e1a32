import type { ComparisonKey, ExtractOutcome, PageInput } from './tasks.js';
import type { FeedFields, TemplateChoice } from '../archive/store.js';
import { DAEMON_OPTIONS } from './options.js';

/**
 * Extractions made before their snapshot was stored. A revisit is extracted in the pool before
 * anything is stored (tasks.ts, revisitTask); when the page is then stored for extraction (an
 * edit, a key to rebase, a layout no template has yet), its queued extraction takes that result
 * instead of decompressing and parsing the page again — a revisit extracts its page once (issue
 * #9). It takes it only if everything the extraction reads besides the bytes is still what the
 * revisit's extraction read: the feed's templates and wrappers, the article's comparison key, the
 * item's fields (a poll may have changed its title: other signifiers). Otherwise, or when the
 * entry is gone (evicted, or the process restarted), the page is extracted the usual way.
 */

/** Everything an extraction reads besides the page's bytes. */
export interface ExtractionInputs {
  page: Omit<PageInput, 'body'>;
  maxBytes: number;
  templates: readonly TemplateChoice[];
  compare: ComparisonKey | null;
}

const sameTemplates = (a: readonly TemplateChoice[], b: readonly TemplateChoice[]) =>
  a.length === b.length && a.every((template, i) => {
    const other = b[i]!;
    return template.id === other.id && template.wrapperId === other.wrapperId && template.signature === other.signature && template.wrapper === other.wrapper;
  });

const sameKey = (a: ComparisonKey | null, b: ComparisonKey | null) =>
  a === null || b === null ? a === b : a.hash === b.hash && a.method === b.method && a.wrapperId === b.wrapperId && a.extractor === b.extractor && a.object === b.object && a.source === b.source;

const sameFeedFields = (a: FeedFields, b: FeedFields) =>
  a.title === b.title && a.summary === b.summary && a.published === b.published && a.updated === b.updated && a.author === b.author;

/**
 * The inputs alone. A caller may hand over more (the revisit passes its whole pool task, with the
 * page's bytes and the site's reference body): kept as given, each entry would hold those bytes
 * until it is taken or dropped.
 */
const inputsOnly = ({ page, maxBytes, templates, compare }: ExtractionInputs): ExtractionInputs => ({
  page: { contentType: page.contentType, url: page.url, feed: page.feed }, maxBytes, templates, compare,
});

function sameInputs(a: ExtractionInputs, b: ExtractionInputs): boolean {
  return a.maxBytes === b.maxBytes && a.page.url === b.page.url && a.page.contentType === b.page.contentType && sameFeedFields(a.page.feed, b.page.feed)
    && sameTemplates(a.templates, b.templates) && sameKey(a.compare, b.compare);
}

export class ExtractedAhead {
  private readonly entries = new Map<number, { inputs: ExtractionInputs; outcome: ExtractOutcome }>();

  /** Keeps the extraction of a snapshot just stored for extraction. */
  remember(snapshotId: number, inputs: ExtractionInputs, outcome: ExtractOutcome): void {
    if (this.entries.size >= DAEMON_OPTIONS.extractedAhead) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(snapshotId, { inputs: inputsOnly(inputs), outcome });
  }

  /** The snapshot's extraction made ahead, if it was made from `inputs`; the entry is used up either way. */
  take(snapshotId: number, inputs: ExtractionInputs): ExtractOutcome | null {
    const entry = this.entries.get(snapshotId);
    if (!entry) return null;
    this.entries.delete(snapshotId);
    return sameInputs(entry.inputs, inputs) ? entry.outcome : null;
  }
}
