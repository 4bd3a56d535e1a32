import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  burstOverflow, choGarciaMolinaRate, decayedRate, expectedArrivals, hourOfWeek, multiplierWithout, poissonTail, profileMultipliers, rateUpperBound, recentArrivals, safeMean,
} from '../../src/schedule/estimate.js';
import { seededRandom } from '../../src/util/random.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

test('decayedRate recovers a Poisson rate and forgets old behaviour', () => {
  const random = seededRandom(7);
  const now = 60 * DAY;
  const arrivals: number[] = [];
  for (let t = 0; t < now; t += -Math.log(1 - random()) * (DAY / 24)) arrivals.push(t); // 24/day
  const rate = decayedRate(arrivals, now, 0, 7 * DAY) * DAY;
  assert.ok(Math.abs(rate - 24) < 3, `estimated ${rate}/day`);
  // The same feed gone quiet for three half-lives reads about 1/8 of its old rate.
  const later = decayedRate(arrivals, now + 21 * DAY, 0, 7 * DAY) * DAY;
  assert.ok(later > 2 && later < 4.5, `after going quiet ${later}/day`);
});

test('Cho & Garcia-Molina: bias-reduced rate from poll outcomes alone', () => {
  // 100 polls an hour apart, 40 of which found something: λ = −ln(60.5/100.5) per hour.
  assert.ok(Math.abs(choGarciaMolinaRate(100, 40, HOUR) * HOUR - -Math.log(60.5 / 100.5)) < 1e-12);
  // Every poll new: finite (the naive −ln(0) would be infinite).
  assert.ok(Number.isFinite(choGarciaMolinaRate(10, 10, HOUR)));
  assert.equal(Math.abs(choGarciaMolinaRate(10, 0, HOUR)), 0, 'nothing new in 10 polls: rate 0');
  assert.equal(choGarciaMolinaRate(0, 0, HOUR), 0);
});

test('rateUpperBound is far above the estimate with little evidence and near it with much', () => {
  assert.ok(rateUpperBound(0, HOUR) * HOUR > 2, 'nothing seen in an hour: could still be >2/h');
  const many = rateUpperBound(1000, 100 * HOUR) * HOUR;
  assert.ok(many > 10 && many < 10.7, `${many}`);
});

test('recentArrivals counts the arrivals of the last span and finds the first', () => {
  const now = 10 * HOUR;
  const result = recentArrivals([1 * HOUR, 9.5 * HOUR, 9.6 * HOUR, 9.9 * HOUR, 11 * HOUR], now, HOUR);
  assert.equal(result.count, 3);
  assert.equal(result.first, 9.5 * HOUR);
  assert.deepEqual(recentArrivals([1 * HOUR, 11 * HOUR], now, HOUR), { count: 0, first: null });
});

test('hourOfWeek: Monday 00h is 0, Sunday 23h is 167 (UTC)', () => {
  assert.equal(hourOfWeek(Date.UTC(2026, 10, 2, 0, 30)), 0); // Monday
  assert.equal(hourOfWeek(Date.UTC(2026, 10, 4, 13)), 2 * 24 + 13); // Wednesday 13h
  assert.equal(hourOfWeek(Date.UTC(2026, 10, 8, 23, 59)), 167); // Sunday
});

test('the weekly profile shapes expected arrivals: office hours vs night', () => {
  const counts = new Array<number>(168).fill(0);
  for (let day = 0; day < 5; day++) for (let hour = 9; hour < 17; hour++) counts[day * 24 + hour] = 10;
  const shape = profileMultipliers(counts);
  assert.ok(shape[10]! > 3, 'Monday 10h busy');
  assert.ok(shape[2]! < 0.1, 'Monday 2h quiet');
  const mean = shape.reduce((a, b) => a + b, 0) / 168;
  assert.ok(Math.abs(mean - 1) < 1e-9, 'multipliers average to 1');
  const rate = 1 / HOUR;
  const night = expectedArrivals(rate, shape, Date.UTC(2026, 10, 3, 0), 6 * HOUR); // Tue 00–06
  const day = expectedArrivals(rate, shape, Date.UTC(2026, 10, 3, 9), 6 * HOUR); // Tue 09–15
  assert.ok(day > 20 * night, `day ${day} vs night ${night}`);
  assert.equal(expectedArrivals(rate, null, 0, 6 * HOUR), 6);
});

test('poissonTail and safeMean', () => {
  assert.ok(Math.abs(poissonTail(1, 0) - (1 - Math.exp(-1))) < 1e-12);
  assert.equal(poissonTail(0, 3), 0);
  const mean = safeMean(9, 0.001);
  assert.ok(poissonTail(mean, 9) <= 0.001 && poissonTail(mean * 1.01, 9) > 0.001, `μ=${mean}`);
});

test('burstOverflow: nothing lost while a burst cannot fill the window before the next poll, then the lost items grow with the square of the excess', () => {
  const rate = 30 / HOUR;
  assert.equal(burstOverflow(20 * 60_000, rate, 24), 0); // 10 items in 20 min: the window keeps 24
  assert.equal(burstOverflow(48 * 60_000, rate, 24), 0); // exactly full
  const tenMore = burstOverflow(58 * 60_000, rate, 24);
  const twentyMore = burstOverflow(68 * 60_000, rate, 24);
  assert.ok(Math.abs(twentyMore / tenMore - 4) < 1e-9, `${twentyMore / tenMore}`);
});

test('multiplierWithout: a one-off burst does not make its own hour busy; a daily peak stays busy without one day of it', () => {
  const oneOff = new Array<number>(168).fill(1);
  oneOff[50] = 41; // one burst of 40 items on Tuesday 02:00
  assert.ok(multiplierWithout(oneOff, false, 50, 40) < 1.2);
  const daily = new Array<number>(168).fill(0.2);
  for (let day = 0; day < 7; day++) daily[day * 24 + 13] = 30; // 30 items every day at 13:00
  assert.ok(multiplierWithout(daily, true, 13, 30) > 10);
});
