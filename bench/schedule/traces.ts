import type { Trace, TraceFeed } from '../../src/schedule/simulate.js';
import { seededRandom } from '../../src/util/random.js';

/**
 * Realistic feed traces for the scheduling benchmark: a month of items for ~30 feeds, each kind
 * the issue names — Poisson feeds from 0.1/day to 500/day with windows 10–100, day/night and
 * office-hours rhythms, weekday-only feeds, live-blog bursts, a feed dormant then active, a dead
 * feed, a daily digest, hourly batches, feeds whose dates lie (missing, all the same, late, in
 * the wrong time zone), and ttl / max-age hints. Two weeks of history precede the month, so the
 * first poll sees a full document as a real subscription would.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

type RateFn = (t: number) => number; // items per ms at time t

/** Inhomogeneous Poisson arrivals on [from, to) by thinning, with `peak` ≥ max rate. */
function poissonArrivals(random: () => number, from: number, to: number, rate: RateFn, peak: number): number[] {
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

type DateStyle = 'true' | 'missing' | 'same' | 'late' | 'future';

interface Spec {
  id: string;
  window: number;
  /** Items per day on average, to give slow feeds enough history to fill their document. */
  daily?: number;
  arrivals: (random: () => number, from: number, to: number) => number[];
  dates?: DateStyle;
  ttl?: number;
  maxAge?: number;
}

const poisson = (daily: number): Spec['arrivals'] => (random, from, to) => poissonArrivals(random, from, to, () => perDay(daily), perDay(daily));

function specs(start: number): Spec[] {
  const midMonth = start + 15 * DAY;
  return [
    { id: 'poisson-0.1d-w10', window: 10, daily: 0.1, arrivals: poisson(0.1) },
    { id: 'poisson-0.5d-w20', window: 20, daily: 0.5, arrivals: poisson(0.5) },
    { id: 'poisson-1d-w10', window: 10, daily: 1, arrivals: poisson(1) },
    { id: 'poisson-3d-w15', window: 15, daily: 3, arrivals: poisson(3) },
    { id: 'poisson-10d-w15', window: 15, daily: 10, arrivals: poisson(10) },
    { id: 'poisson-24d-w25', window: 25, daily: 24, arrivals: poisson(24) },
    { id: 'poisson-50d-w20', window: 20, daily: 50, arrivals: poisson(50) },
    { id: 'poisson-80d-w40', window: 40, daily: 80, arrivals: poisson(80) },
    { id: 'poisson-150d-w30', window: 30, daily: 150, arrivals: poisson(150) },
    { id: 'poisson-200d-w100', window: 100, daily: 200, arrivals: poisson(200) },
    { id: 'poisson-300d-w10', window: 10, daily: 300, arrivals: poisson(300) },
    { id: 'poisson-500d-w50', window: 50, daily: 500, arrivals: poisson(500) },
    {
      id: 'day-night-40d-w20', window: 20,
      arrivals: (random, from, to) => poissonArrivals(random, from, to, (t) => perDay(40) * Math.max(0, 1 + Math.cos(((utcHour(t) - 14) / 24) * 2 * Math.PI)), perDay(80)),
    },
    {
      id: 'office-hours-30d-w10', window: 10,
      arrivals: (random, from, to) => poissonArrivals(random, from, to, (t) => (weekday(t) && utcHour(t) >= 9 && utcHour(t) < 17 ? perDay(30 * 3 * 7 / 5) : 0), perDay(30 * 3 * 7 / 5)),
    },
    { id: 'weekdays-8d-w10', window: 10, arrivals: (random, from, to) => poissonArrivals(random, from, to, (t) => (weekday(t) ? perDay(8 * 7 / 5) : 0), perDay(8 * 7 / 5)) },
    {
      id: 'live-blog-bursts-w20', window: 20,
      arrivals: (random, from, to) => {
        const bursts = [3, 9, 17, 24].map((day) => start + day * DAY + (10 + Math.floor(random() * 8)) * HOUR);
        const inBurst = (t: number) => bursts.some((b) => t >= b && t < b + 3 * HOUR);
        return poissonArrivals(random, from, to, (t) => (inBurst(t) ? 40 / HOUR : perDay(3)), 40 / HOUR);
      },
    },
    { id: 'dormant-then-20d-w10', window: 10, arrivals: (random, from, to) => poissonArrivals(random, Math.max(from, midMonth), to, () => perDay(20), perDay(20)).concat(poissonArrivals(random, start - 60 * DAY, start - 20 * DAY, () => perDay(1), perDay(1))) },
    { id: 'dead-w10', window: 10, arrivals: (random, from) => poissonArrivals(random, from - 60 * DAY, from - 30 * DAY, () => perDay(1), perDay(1)) },
    {
      id: 'daily-digest-w10', window: 10,
      arrivals: (_random, from, to) => {
        const out: number[] = [];
        for (let day = Math.floor(from / DAY) * DAY; day < to; day += DAY) if (day + 6 * HOUR >= from && day + 6 * HOUR < to) out.push(day + 6 * HOUR);
        return out;
      },
    },
    {
      id: 'hourly-batches-3-w12', window: 12,
      arrivals: (_random, from, to) => {
        const out: number[] = [];
        for (let hour = Math.ceil(from / HOUR) * HOUR; hour < to; hour += HOUR) out.push(hour, hour + 1000, hour + 2000);
        return out;
      },
    },
    { id: 'dates-missing-20d-w10', window: 10, daily: 20, arrivals: poisson(20), dates: 'missing' },
    { id: 'dates-all-same-20d-w10', window: 10, daily: 20, arrivals: poisson(20), dates: 'same' },
    { id: 'dates-late-8h-15d-w10', window: 10, daily: 15, arrivals: poisson(15), dates: 'late' },
    { id: 'dates-tz-plus5h-15d-w10', window: 10, daily: 15, arrivals: poisson(15), dates: 'future' },
    { id: 'ttl60-5d-w10', window: 10, daily: 5, arrivals: poisson(5), ttl: 60 },
    { id: 'maxage30m-50d-w20', window: 20, daily: 50, arrivals: poisson(50), maxAge: 1800 },
    { id: 'ttl720-2d-w10', window: 10, daily: 2, arrivals: poisson(2), ttl: 720 },
    { id: 'poisson-6d-w10', window: 10, daily: 6, arrivals: poisson(6) },
    { id: 'poisson-100d-w25', window: 25, daily: 100, arrivals: poisson(100) },
    { id: 'poisson-0.3d-w10', window: 10, daily: 0.3, arrivals: poisson(0.3) },
  ];
}

function shownDate(style: DateStyle, at: number): string | null {
  switch (style) {
    case 'true': return new Date(at).toISOString();
    case 'missing': return null;
    case 'same': return '2020-01-01T00:00:00.000Z';
    case 'late': return new Date(at - 8 * HOUR).toISOString();
    case 'future': return new Date(at + 5 * HOUR).toISOString();
  }
}

export function generateTraces(seed = 20261122, days = 30): Trace {
  const start = Date.UTC(2026, 9, 5); // a Monday
  const end = start + days * DAY;
  const feeds: TraceFeed[] = specs(start).map((spec, index) => {
    const random = seededRandom(seed + index * 7919);
    const historyDays = spec.daily ? Math.min(400, Math.max(14, (2 * spec.window) / spec.daily)) : 14;
    const arrivals = spec.arrivals(random, start - historyDays * DAY, end).sort((a, b) => a - b);
    return {
      id: spec.id,
      window: spec.window,
      ttl: spec.ttl ?? null,
      maxAge: spec.maxAge ?? null,
      items: arrivals.map((at, i) => ({ guid: `${spec.id}#${i}`, at: new Date(at).toISOString(), date: shownDate(spec.dates ?? 'true', at) })),
    };
  });
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString(), feeds };
}
