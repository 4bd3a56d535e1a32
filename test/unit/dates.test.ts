import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeFeedDate } from '../../src/feeds/dates.js';

const cases: Array<[string, string | null]> = [
  // RFC 822 and its common slips
  ['Tue, 03 Jan 2006 16:53:41 -0500', '2006-01-03T21:53:41.000Z'],
  ['Tue, 03 Jan 2006 16:53:41 GMT', '2006-01-03T16:53:41.000Z'],
  ['03 Jan 2006 16:53:41 EST', '2006-01-03T21:53:41.000Z'],
  ['Tue, 3 Jan 06 16:53 PDT', '2006-01-03T23:53:00.000Z'],
  ['Mon, 03 Jan 2006 16:53:41 +0000', '2006-01-03T16:53:41.000Z'], // wrong day name
  ['Tue 03 Jan 2006 16:53:41 +05:30', '2006-01-03T11:23:41.000Z'], // no comma, colon in zone
  ['Tuesday, 03 January 2006 16:53:41 UT', '2006-01-03T16:53:41.000Z'],
  ['Tue, 03 Jan 2006 16:53:41', '2006-01-03T16:53:41.000Z'], // no zone: UTC
  ['Tue, 03-Jan-2006 16:53:41 GMT', '2006-01-03T16:53:41.000Z'],
  ['Tue, 03 Jan 2006 16:53:41 GMT+2', '2006-01-03T14:53:41.000Z'],
  ['Tue, 03 Jan 2006 16:53:41 Z', '2006-01-03T16:53:41.000Z'],
  ['Tue, 03 Jan 2006', '2006-01-03T00:00:00.000Z'],
  // US zones named without standard/daylight, zones with minutes, tz names, a comma after the month
  ['Mon, 13 Feb 2012 10:00:00 ET', '2012-02-13T15:00:00.000Z'],
  ['Mon, 13 Feb 2012 10:00:00 PT', '2012-02-13T18:00:00.000Z'],
  ['Sat, 20 Dec 2003 21:17:00 CT', '2003-12-21T03:17:00.000Z'],
  ['Sun, 04 Jan 2004 16:29:06 ADT', '2004-01-04T19:29:06.000Z'],
  ['Mon, 13 Feb 2012 10:00:00 GMT-01:01', '2012-02-13T11:01:00.000Z'],
  ['Mon, 13 Feb 2012 10:00:00 Etc/GMT', '2012-02-13T10:00:00.000Z'],
  ['Mon, 13 Feb 2012 10:00:00 Etc/GMT+5', '2012-02-13T15:00:00.000Z'], // POSIX sign: five hours behind
  ['Mon, 13 Feb, 2012 10:00:00 GMT', '2012-02-13T10:00:00.000Z'],
  ['Mon, 13 Feb, 2012', '2012-02-13T00:00:00.000Z'],
  // W3C-DTF / ISO 8601
  ['2006-01-03T16:53:41Z', '2006-01-03T16:53:41.000Z'],
  // compact (basic) forms, ordinal dates, an hour alone
  ['20120213T100000Z', '2012-02-13T10:00:00.000Z'],
  ['20120213T1000Z', '2012-02-13T10:00:00.000Z'],
  ['2012-044', '2012-02-13T00:00:00.000Z'],
  ['2012044T10:00Z', '2012-02-13T10:00:00.000Z'],
  ['2012-367', null],
  ['2012-02-13T10Z', '2012-02-13T10:00:00.000Z'],
  ['2006-01-03T16:53:41.250+01:00', '2006-01-03T15:53:41.250Z'],
  ['2006-01-03T16:53-08:00', '2006-01-04T00:53:00.000Z'],
  ['2006-01-03 16:53:41', '2006-01-03T16:53:41.000Z'],
  ['2006-01-03', '2006-01-03T00:00:00.000Z'],
  ['2006-01', '2006-01-01T00:00:00.000Z'],
  ['20060103T165341Z', '2006-01-03T16:53:41.000Z'],
  // asctime and month-first
  ['Tue Jan  3 16:53:41 2006', '2006-01-03T16:53:41.000Z'],
  ['Jan 3, 2006 16:53:41 GMT', '2006-01-03T16:53:41.000Z'],
  // not dates
  ['', null],
  ['yesterday', null],
  ['2006-02-31T00:00:00Z', null],
  ['Tue, 03 Foo 2006 16:53:41 GMT', null],
  ['Tue, 03 Jan 2006 16:53:41 XYZ', null],
];

for (const [input, expected] of cases) {
  test(`feed date ${JSON.stringify(input)} → ${expected}`, () => {
    assert.equal(normalizeFeedDate(input), expected);
  });
}
