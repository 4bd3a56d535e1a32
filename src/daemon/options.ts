/**
 * The daemon's tunables, in one place (as extract/options.ts holds extraction's): what each
 * bounds and why it is what it is. The measurements behind the values are in
 * docs/measurements.md ("The daemon's tunables"); settings a user may change are in
 * config/default.yaml, not here. The scheduler's are in schedule/options.ts.
 */
export const DAEMON_OPTIONS = {
  /**
   * A capture's requisites are fetched beside the daemon's work, never inside a capture's unit:
   * a page whose images sit on a slow or unreachable host would otherwise hold its host's slot
   * (and the backlog) for as long as capture.requisites.timeout.
   */
  requisites: {
    /** Captures whose requisites are fetched at once (each fetches several: capture.requisites.concurrency in all). */
    captures: 16,
    /**
     * Captures waiting for their requisites (or in flight) at which the daemon takes no new page
     * and no revisit — polls go on — until the lane is below it again: a page captured now would
     * only lengthen the wait for its pictures. About two minutes of the lane's work at its pace on
     * the 100,000-feed first day (about 1,000 captures a minute, capture.requisites.concurrency 8).
     */
    holdCapturesAt: 2_000,
    /**
     * Captures the lane holds in memory, waiting for their requisites; past that they wait in the
     * archive's queue alone, read back when the lane has room. Each holds the list its page names
     * (a few KB; its page only until the pool has read it), so ten thousand hold some tens of MB.
     */
    waiting: 10_000,
    /**
     * How often an idle lane looks in the archive's queue (ms): for what another daemon left on a
     * shared archive, once its claims expired (lease.staleAfterMs). A lane that runs dry looks at
     * once; this bounds only how long a dead daemon's captures wait past their claims.
     */
    refillEveryMs: 30_000,
  },
  loop: {
    /** The most due units of each kind a pass looks at. */
    candidates: 4096,
    /** The longest the loop sleeps before looking again (work another process may have added: `forest feeds add`, a push, "poll now"). */
    maxSleepMs: 5000,
    /**
     * The shortest time between two passes asked for by work ending (ms): a pass reads the due
     * work of every host that is not ready, so passes close together cost CPU for nothing; 50 ms
     * leaves a freed slot idle at most that long, against a politeness delay of a second per host.
     */
    minPassGapMs: 50,
    /** Pages waiting for extraction beyond which no revisit is fetched (extraction is the bottleneck then). */
    extractionBacklogForRevisits: 100,
    /** How often the daemon reports (log line and the lease's status) what it did and what waits. */
    reportEveryMs: 60_000,
    /** While the database is full: how often to test for room again, and how often to say so. */
    fullProbeEveryMs: 5_000,
    fullLogEveryMs: 60_000,
  },
  /** When a report period counts as at capacity (capacity.ts): the daemon then says which setting would help. */
  capacity: {
    /**
     * The share of a period's passes that left due work waiting for a request slot. A burst (a
     * feed's thirty new items, a round of revisits) fills the slots for a pass or two; most of a
     * minute's passes is the daemon's steady state.
     */
    passShare: 0.5,
    /** Fewer passes than this in a period (a quiet minute, a daemon just started) say nothing. */
    minPasses: 20,
    /**
     * The main thread's busy share of the period from which it, not the slots, is the bound: the
     * event loop then has no time for more requests' callbacks (the first day at 100,000 feeds
     * with 32 slots: 0.9, every slot's unit waiting on it).
     */
    mainBusyShare: 0.8,
  },
  claims: {
    /**
     * A unit another daemon holds (or whose host it is requesting from) is passed over for this
     * long before this daemon asks for it again: it is being done, and asking at every pass would
     * spin the loop on it (several daemons on one PostgreSQL archive).
     */
    refusedBackoffMs: 1000,
    /** How often a daemon reads which other daemons work on the archive, to take its own hosts' work first (share.ts). */
    peersEveryMs: 10_000,
    /**
     * Hosts whose daemon is remembered between passes (share.ts, OwnHosts), while the live
     * daemons stay the same: more are forgotten at once (100,000 feeds on 5,000 hosts hold a
     * twentieth of it; a host's entry is some hundred bytes).
     */
    hostsRemembered: 100_000,
    /**
     * Ended units' claims are given back together a moment later, one statement for all (on
     * PostgreSQL each statement is a round trip: one a unit was a twentieth of the daemon's
     * queries). A unit is no longer due once its work committed, so no other daemon asks for it
     * meanwhile; one that is still due (its work failed) waits this long more at most.
     */
    releaseBatchMs: 100,
  },
  lease: {
    /** The heartbeat of the daemon's lease (ms). */
    heartbeatMs: 10_000,
    /** A lease whose heartbeat is older than this (six missed beats) belongs to a daemon that died. */
    staleAfterMs: 60_000,
  },
  retention: {
    /** The first pass a few minutes in (a restart loop does not run it over and over), then daily. */
    firstMs: 5 * 60_000,
    everyMs: 24 * 3600_000,
  },
  extraction: {
    /**
     * Pages being extracted at once, per worker thread. A page's extraction is the pool's work
     * between the archive's: its capture, comparison key and templates read before, its record
     * written after. On SQLite those take well under a millisecond; on PostgreSQL each is a round
     * trip, and the reads and the record took about as long as the pool's part (30–40 ms against
     * 25–35 ms a page): with two pages per thread the worker waited a third of the time and one
     * PostgreSQL daemon extracted half as many pages as one SQLite daemon (bench:scale --pin
     * --profile, docs/measurements.md). Four keeps it fed on either; a page in hand is its body
     * and its result, a few hundred KB at most.
     */
    perThread: 4,
  },
  learning: {
    /** Pages a template's wrapper is learned from (the newest). */
    relearnFrom: 10,
    /** Recent pages re-extracted with a new wrapper. */
    reextractLimit: 50,
    /** Due extractions looked at per pass. */
    maxCandidates: 256,
    /** Pages a template waits after a wrapper stopped matching before it is re-learned… */
    relearnGap: 3,
    /** …doubling with each re-learning that did not help, up to 2^4 × relearnGap: a template no wrapper fits is not re-learned every few pages forever. */
    relearnBackoffSteps: 4,
    /**
     * A wrapper the per-page guard keeps setting aside (or that keeps not matching) is retired —
     * the template goes back to single-page extraction until a routine learning finds a wrapper
     * that holds — once this many re-learnings on its drift, relearnGap pages apart and more,
     * found none to replace it (issue #69): one odd page does not cost a template its wrapper, a
     * wrapper that disagrees with page after page does not stay.
     */
    retireAfter: 2,
    /** The most pages between two routine re-learnings: learning then costs a busy template at most a tenth of its parsing. */
    routineGap: 100,
    /**
     * The HTML a learning holds parsed at once (bytes): a prepared page takes about 27 times its
     * HTML in heap, so 3 MB is about 80 MB of trees, a third of a worker's heap.
     */
    htmlBytes: 3 * 2 ** 20,
    /** FOREST needs two pages (forest-paper §5): a site of large pages learns from fewer, never from fewer than two. */
    minSamples: 2,
  },
  /** Revisits extracted ahead of their storage, kept at most (older ones are extracted again instead of held in memory). */
  extractedAhead: 64,
  /**
   * PostgreSQL connections a daemon holds beyond one per request slot and worker: the pass, the
   * heartbeat, the WebSub pass and the notifier each query at their own times.
   */
  spareConnections: 4,
  pool: {
    /** Old-generation heap of each worker (MB): learning from ten large pages needs about 150. */
    workerHeapMb: 256,
    /**
     * Young generation of each worker (MB): with the old generation capped, V8 would give it a
     * few MB, and a page's tree, which lives until its task ends, would be copied by scavenge
     * after scavenge. 48 gives 16 MB semi-spaces, V8's default for a large heap.
     */
    workerYoungMb: 48,
    /** How long closing the pool waits for workers still loading their module (built: about 1.4 s). */
    loadWaitMs: 5000,
  },
  availability: {
    /**
     * A revisit whose text is under this share of the previous version's is not the article any
     * more (a teaser, a paywall, an error page): a newsroom's edit keeps most of the text.
     */
    unavailableTextShare: 0.2,
    /** Below this many characters the previous version was too short for the share to mean anything. */
    unavailableMinPreviousChars: 600,
  },
  /** When a poll makes its feed news for the webhooks (feed-events.ts). */
  feedEvents: {
    /** Failures in a row that make a feed failing. */
    failingAfter: 3,
  },
  /** Recovering the items a gap may have lost (gap-recovery.ts). */
  gaps: {
    /** Archive documents followed back after one gap at most: a feed that shows 10 items a document reaches 250 missed items. */
    maxPages: 25,
  },
  /** Webhook deliveries (notifier.ts). */
  notify: {
    /** How often the outbox is filled and delivered (ms). */
    every: 5000,
    /** Events read per webhook and pass. */
    queueLimit: 500,
    /** Deliveries tried per pass, one at a time (a receiver is not flooded). */
    deliveriesPerPass: 50,
  },
  /** The WebSub pass (websub.ts). */
  websub: {
    /** How often the pass runs (ms): a new feed's hub is asked within this long of the poll that found it. */
    every: 10_000,
    /** Subscriptions looked at per pass. */
    perPass: 50,
  },
} as const;
