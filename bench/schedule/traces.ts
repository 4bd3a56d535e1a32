import type { Trace, TraceFeed } from '../../src/schedule/simulate.js';
import { seededRandom } from '../../src/util/random.js';

/**
 * Feed traces for the scheduling benchmark: a month of items per feed, drawn per seed from one
 * of three generators, so that the policy is measured on mixes it was not shaped on:
 *
 * - `catalogue`: one feed of every kind below, each with parameters drawn at random;
 * - `grid`: Poisson feeds on a grid of rates (about 0.3 to 300 items a day) × windows 10 and 25,
 *   plus a random third of the other kinds;
 * - `volatile`: the hard kinds several times over — rates that change from one week to the
 *   next, bursts after long quiet spells, a small window filled at a few hours of the day, live
 *   blogs — plus a few steady feeds.
 *
 * The kinds: Poisson feeds from 0.1 to 500 a day with windows 10–100; day/night and
 * office-hours rhythms; weekday-only feeds; live-blog bursts; a feed dormant then active; a dead
 * feed; a daily digest; hourly batches; feeds whose dates lie (missing, all the same, late, in
 * the wrong time zone, days stale); a feed that wakes at subscription after a slow history; ttl and max-age hints; rates that change month to month; bursty feeds
 * with long quiet spells; a small window with a high rate at a few hours of the day. Two weeks
 * of history (more for slow feeds) precede the month, so the first poll sees a full document as
 * a real subscription would.
 *
 * About a third of the feeds (PAGES_SHARE, drawn per feed from a stream of its own, so that the
 * arrivals are those of every earlier run) link their older items — an RFC 5005 archive, a paged
 * feed, WordPress's `?paged=` (WordPress alone runs over two fifths of the web, and its feeds
 * page): a burst that overflows their document is walked back and caught late, not lost.
 */

const HOUR = 3_600_000;
/** The share of feeds whose older items are linked (module comment). */
export const PAGES_SHARE = 1 / 3;
const DAY = 24 * HOUR;

type Random = () => number;
type RateFn = (t: number) => number; // items per ms at time t

/** Inhomogeneous Poisson arrivals on [from, to) by thinning, with `peak` ≥ max rate. */
function poissonArrivals(random: Random, from: number, to: number, rate: RateFn, peak: number): number[] {
  const out: number[] = [];
  let t = from;
  for (;;) {
    t += -Math.log(1 - random()) / peak;
    if (t >= to) return out;
    if (random() * peak <= rate(t)) out.push(Math.round(t));
  }
}

const perDay = (n: number) => n / DAY;
const utcHour = (t: number) => new Date(t).getUTCHours();
const weekday = (t: number) => {
  const day = new Date(t).getUTCDay();
  return day >= 1 && day <= 5;
};
/** Log-uniform in [low, high]: rates spread evenly over orders of magnitude. */
const logUniform = (random: Random, low: number, high: number) => low * Math.pow(high / low, random());
const pick = <T>(random: Random, options: readonly T[]): T => options[Math.floor(random() * options.length)]!;
const between = (random: Random, low: number, high: number) => low + (high - low) * random();

type DateStyle = 'true' | 'missing' | 'same' | 'late' | 'future' | 'stale';

interface Spec {
  kind: string;
  window: number;
  /** Items per day on average, to give slow feeds enough history to fill their document. */
  daily?: number;
  arrivals: (random: Random, from: number, to: number) => number[];
  dates?: DateStyle;
  ttl?: number;
  maxAge?: number;
}

const poisson = (daily: number): Spec['arrivals'] => (random, from, to) => poissonArrivals(random, from, to, () => perDay(daily), perDay(daily));

/** A spec of each kind, its parameters drawn with `random`; `start` is the month's first instant. */
const KINDS: Record<string, (random: Random, start: number) => Spec> = {
  poisson: (random) => {
    const daily = logUniform(random, 0.1, 500);
    return { kind: 'poisson', window: pick(random, [10, 15, 20, 25, 40, 50, 100]), daily, arrivals: poisson(daily) };
  },
  'day-night': (random) => {
    const daily = logUniform(random, 10, 80);
    const peakHour = Math.floor(random() * 24);
    return {
      kind: 'day-night', window: pick(random, [10, 20, 25]),
      arrivals: (r, from, to) => poissonArrivals(r, from, to, (t) => perDay(daily) * (1 + Math.cos(((utcHour(t) - peakHour) / 24) * 2 * Math.PI)), perDay(2 * daily)),
    };
  },
  'office-hours': (random) => {
    const daily = logUniform(random, 10, 50);
    const rate = perDay((daily * 3 * 7) / 5);
    return { kind: 'office-hours', window: pick(random, [10, 15, 20]), arrivals: (r, from, to) => poissonArrivals(r, from, to, (t) => (weekday(t) && utcHour(t) >= 9 && utcHour(t) < 17 ? rate : 0), rate) };
  },
  weekdays: (random) => {
    const rate = perDay((logUniform(random, 3, 20) * 7) / 5);
    return { kind: 'weekdays', window: 10, arrivals: (r, from, to) => poissonArrivals(r, from, to, (t) => (weekday(t) ? rate : 0), rate) };
  },
  'live-blog': (random, start) => {
    const base = perDay(logUniform(random, 1, 5));
    const burst = between(random, 15, 30) / HOUR;
    const length = between(random, 1, 4) * HOUR;
    const days = Array.from({ length: 2 + Math.floor(random() * 4) }, () => Math.floor(random() * 28));
    const bursts = days.map((day) => start + day * DAY + (8 + random() * 12) * HOUR);
    const inBurst = (t: number) => bursts.some((b) => t >= b && t < b + length);
    return { kind: 'live-blog', window: pick(random, [20, 25, 30]), arrivals: (r, from, to) => poissonArrivals(r, from, to, (t) => (inBurst(t) ? burst : base), burst) };
  },
  dormant: (random, start) => {
    const daily = logUniform(random, 5, 30);
    const wakes = start + between(random, 7, 21) * DAY;
    return { kind: 'dormant', window: 10, arrivals: (r, from, to) => poissonArrivals(r, Math.max(from, wakes), to, () => perDay(daily), perDay(daily)).concat(poissonArrivals(r, start - 60 * DAY, start - 20 * DAY, () => perDay(1), perDay(1))) };
  },
  // Issue #52: a feed whose first document shows a slow history (items days apart) but that
  // publishes every few minutes from about the moment of subscription — woken up, or a feed
  // with stale dates (below). Its first document's dates say nothing of its rate now.
  woken: (random, start) => {
    const daily = logUniform(random, 40, 400);
    const wakes = start + between(random, 0, 2) * HOUR;
    return {
      kind: 'woken', window: pick(random, [10, 25]),
      arrivals: (r, from, to) => poissonArrivals(r, Math.max(from, wakes), to, () => perDay(daily), perDay(daily)).concat(poissonArrivals(r, start - 40 * DAY, start, () => perDay(0.5), perDay(0.5))),
    };
  },
  'dates-stale': (random) => ({ kind: 'dates-stale', window: pick(random, [10, 25]), ...steady(random, 30, 300), dates: 'stale' }),
  dead: () => ({ kind: 'dead', window: 10, arrivals: (r, from) => poissonArrivals(r, from - 60 * DAY, from - 30 * DAY, () => perDay(1), perDay(1)) }),
  'daily-digest': (random) => {
    const hour = Math.floor(random() * 24) * HOUR;
    const size = 1 + Math.floor(random() * 4);
    return {
      kind: 'daily-digest', window: 10,
      arrivals: (_r, from, to) => {
        const out: number[] = [];
        for (let day = Math.floor(from / DAY) * DAY; day < to; day += DAY) for (let i = 0; i < size; i++) if (day + hour >= from && day + hour < to) out.push(day + hour + i * 1000);
        return out;
      },
    };
  },
  'hourly-batches': (random) => {
    const size = 2 + Math.floor(random() * 4);
    return {
      kind: 'hourly-batches', window: pick(random, [12, 20]),
      arrivals: (_r, from, to) => {
        const out: number[] = [];
        for (let hour = Math.ceil(from / HOUR) * HOUR; hour < to; hour += HOUR) for (let i = 0; i < size; i++) out.push(hour + i * 1000);
        return out;
      },
    };
  },
  'dates-missing': (random) => ({ kind: 'dates-missing', window: 10, ...steady(random, 5, 30), dates: 'missing' }),
  'dates-same': (random) => ({ kind: 'dates-same', window: 10, ...steady(random, 5, 30), dates: 'same' }),
  'dates-late': (random) => ({ kind: 'dates-late', window: 10, ...steady(random, 5, 30), dates: 'late' }),
  'dates-future': (random) => ({ kind: 'dates-future', window: 10, ...steady(random, 5, 30), dates: 'future' }),
  ttl: (random) => ({ kind: 'ttl', window: 10, ...steady(random, 1, 10), ttl: pick(random, [60, 180, 720]) }),
  'max-age': (random) => ({ kind: 'max-age', window: 20, ...steady(random, 20, 80), maxAge: pick(random, [900, 1800, 3600]) }),
  'changing-rate': (random) => {
    // A new rate every 5–12 days, anywhere from a fifth to five times the feed's usual rate.
    const usual = logUniform(random, 2, 100);
    const window = pick(random, [10, 20, 25]);
    return {
      kind: 'changing-rate', window, daily: usual,
      arrivals: (r, from, to) => {
        const out: number[] = [];
        for (let t = from; t < to;) {
          const end = Math.min(to, t + between(r, 5, 12) * DAY);
          const daily = usual * logUniform(r, 0.2, 5);
          out.push(...poissonArrivals(r, t, end, () => perDay(daily), perDay(daily)));
          t = end;
        }
        return out;
      },
    };
  },
  'bursty-quiet': (random) => {
    // Nothing for days, then 5–20 items within half an hour to two hours.
    const window = pick(random, [10, 15, 20]);
    return {
      kind: 'bursty-quiet', window,
      arrivals: (r, from, to) => {
        const out: number[] = [];
        for (let t = from + between(r, 1, 6) * DAY; t < to; t += between(r, 2, 10) * DAY) {
          const size = 5 + Math.floor(r() * 16);
          const length = between(r, 0.5, 2) * HOUR;
          for (let i = 0; i < size; i++) out.push(Math.round(t + r() * length));
        }
        return out.filter((at) => at < to);
      },
    };
  },
  'peak-hours': (random) => {
    // A small window and most of the day's items in a few hours: the window fills in well
    // under an hour then, while the daily mean says it lasts most of a day.
    const hours = 2 + Math.floor(random() * 3);
    const first = Math.floor(random() * 24);
    const peak = between(random, 10, 25) / HOUR;
    const quiet = perDay(logUniform(random, 1, 6));
    const inPeak = (t: number) => (utcHour(t) - first + 24) % 24 < hours;
    return { kind: 'peak-hours', window: pick(random, [8, 10, 12]), arrivals: (r, from, to) => poissonArrivals(r, from, to, (t) => (inPeak(t) ? peak : quiet), peak) };
  },
};

function steady(random: Random, low: number, high: number): Pick<Spec, 'daily' | 'arrivals'> {
  const daily = logUniform(random, low, high);
  return { daily, arrivals: poisson(daily) };
}

const OTHER_KINDS = Object.keys(KINDS).filter((kind) => kind !== 'poisson');

export const GENERATORS = {
  catalogue(random: Random, start: number): Spec[] {
    const poissons = Array.from({ length: 12 }, () => KINDS.poisson!(random, start));
    return poissons.concat(OTHER_KINDS.map((kind) => KINDS[kind]!(random, start)));
  },
  grid(random: Random, start: number): Spec[] {
    const out: Spec[] = [];
    for (const rate of [0.3, 1, 3, 10, 30, 100, 300]) {
      for (const window of [10, 25]) {
        const daily = rate * logUniform(random, 0.7, 1.4);
        out.push({ kind: 'poisson', window, daily, arrivals: poisson(daily) });
      }
    }
    for (const kind of OTHER_KINDS) if (random() < 1 / 3) out.push(KINDS[kind]!(random, start));
    return out;
  },
  volatile(random: Random, start: number): Spec[] {
    const out: Spec[] = [];
    for (const [kind, count] of [['changing-rate', 3], ['peak-hours', 3], ['bursty-quiet', 1], ['live-blog', 1], ['woken', 1], ['dates-stale', 1], ['poisson', 10]] as const) {
      for (let i = 0; i < count; i++) out.push(KINDS[kind]!(random, start));
    }
    return out;
  },
} satisfies Record<string, (random: Random, start: number) => Spec[]>;

export type GeneratorName = keyof typeof GENERATORS;
export const GENERATOR_NAMES = Object.keys(GENERATORS) as GeneratorName[];

/** Seed n uses generator n mod 3: seeds 1..10 cover each generator three or four times. */
export function generatorOf(seed: number): GeneratorName {
  return GENERATOR_NAMES[((seed % GENERATOR_NAMES.length) + GENERATOR_NAMES.length) % GENERATOR_NAMES.length]!;
}

function shownDate(style: DateStyle, at: number): string | null {
  switch (style) {
    case 'true': return new Date(at).toISOString();
    case 'missing': return null;
    case 'same': return '2020-01-01T00:00:00.000Z';
    case 'late': return new Date(at - 8 * HOUR).toISOString();
    case 'future': return new Date(at + 5 * HOUR).toISOString();
    // Days old, by an amount that differs from item to item (a CMS stamping the draft's date).
    case 'stale': return new Date(at - (2 + 3 * ((Math.floor(at / 1000) % 97) / 97)) * DAY).toISOString();
  }
}

/** The trace of one seed: its generator's feeds, ids `kind-N` (the kind is what the report groups by). */
export function generateTraces(seed: number, days = 30, generator: GeneratorName = generatorOf(seed)): Trace & { generator: GeneratorName } {
  const start = Date.UTC(2026, 9, 5); // a Monday
  const end = start + days * DAY;
  const specs = GENERATORS[generator](seededRandom(seed * 7919 + 17), start);
  const feeds: TraceFeed[] = specs.map((spec, index) => {
    const random = seededRandom(seed * 104_729 + index * 7919);
    const historyDays = spec.daily ? Math.min(400, Math.max(14, (2 * spec.window) / spec.daily)) : 14;
    const arrivals = spec.arrivals(random, start - historyDays * DAY, end).sort((a, b) => a - b);
    const id = `${spec.kind}-${index}`;
    const pages = seededRandom(seed * 15_485_863 + index * 104_729 + 1)() < PAGES_SHARE;
    return {
      id,
      window: spec.window,
      pages,
      ttl: spec.ttl ?? null,
      maxAge: spec.maxAge ?? null,
      items: arrivals.map((at, i) => ({ guid: `${id}#${i}`, at: new Date(at).toISOString(), date: shownDate(spec.dates ?? 'true', at) })),
    };
  });
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString(), feeds, generator };
}

/** The kind of a feed id made by generateTraces. */
export const kindOf = (id: string) => id.replace(/-\d+$/, '');
