const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * The scheduler's tunables, in one place: what each bounds and why. Settings a user may change
 * (schedule.* in config/default.yaml: intervals, overflow risk, delay cost) are not here; the
 * runs that chose these values are in docs/polling.md and docs/measurements.md.
 */
export const SCHEDULE_OPTIONS = {
  /** Polls starting later than this mean the daemon, not the feed, is the bottleneck (ms). */
  behindScheduleMs: 60_000,
  /** The window (items a document shows) assumed before a document has shown its own. */
  assumedWindow: 10,
  /** A recent count less likely than this under the long-run rate is a burst (see estimateRate). */
  burstSignificance: 0.001,
  /** Odds, gap under the burst rate against under the usual rate, that mark a burst's onset. */
  burstOnsetOdds: 20,
  /** Arrival times kept per feed. */
  maxArrivals: 400,
  /** How long old behaviour keeps weight in the rate (ms). */
  rateHalfLife: 7 * 24 * HOUR,
  /** …in the weekly profile (ms): a profile needs weeks to say anything. */
  profileHalfLife: 28 * 24 * HOUR,
  /** …in the count of polls that found something new (ms). */
  pollHalfLife: 7 * 24 * HOUR,
  /** A burst is an hour-scale rate this many times what the feed's rate and profile expect then. */
  burstFactor: 4,
  /** The longest span an episode's items are counted over (its size): the hour-scale of a news event (ms). */
  episodeSpan: 3 * HOUR,
  /** Burst episodes kept: enough to estimate how often a feed bursts. */
  maxBursts: 16,
  /** Arrivals before the shape of the day is used (about two a day in each hour of the day). */
  dailyShapeArrivals: 48,
  /**
   * A silence is long — the feed that breaks it is watched afresh — when it lasted at least the
   * rate's half-life (past it the estimate describes the feed's past more than its present) and
   * at least this many of the feed's mean gaps (a silence that long happens by chance e^-4 ≈ 2 %
   * of the time: a weekly feed's week without news is no silence).
   */
  silentGaps: 4,
} as const;
