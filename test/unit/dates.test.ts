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
  // localized month and day names (issue #69, 3): read from the platform's own CLDR tables
  ['Τρι, 03 Φεβ 2009 08:00:00 GMT', '2009-02-03T08:00:00.000Z'],
  ['mar., 03 janv. 2006 16:53:41 +0100', '2006-01-03T15:53:41.000Z'],
  ['Di, 07 März 2006 16:53:41 MEZ', null], // MEZ is no zone Forest knows: no guess
  ['Di, 07 März 2006 16:53:41 +0100', '2006-03-07T15:53:41.000Z'],
  ['sáb, 14 dic 2013 10:00:00 GMT', '2013-12-14T10:00:00.000Z'],
  ['2011-március-02T18:00+01:00', '2011-03-02T17:00:00.000Z'],
  // Korean: 년 월 일, 오전/오후 (a.m./p.m.), Korea's time when no zone is written
  ['2010-11-02 오전 09:05:00', '2010-11-02T00:05:00.000Z'],
  ['2010-11-02 오후 12:30:00', '2010-11-02T03:30:00.000Z'],
  ['2010-11-02 오전 12:30:00', '2010-11-01T15:30:00.000Z'],
  ['2010년 11월 2일 21:05:00', '2010-11-02T12:05:00.000Z'],
  // slashed dates after a day name
  ['Mon, 2010/11/01 08:00:00 PST', '2010-11-01T16:00:00.000Z'],
  // ISO 8601:2000's truncated forms (two-digit years; YYMMDD, not YYYYMM, is the 6-digit form)
  ['101102', '2010-11-02T00:00:00.000Z'],
  ['10-11-02', '2010-11-02T00:00:00.000Z'],
  ['-1011', '2010-11-01T00:00:00.000Z'],
  ['-10-11', '2010-11-01T00:00:00.000Z'],
  ['10306', '2010-11-02T00:00:00.000Z'],
  ['2010-011-02T08:00:00Z', '2010-11-02T08:00:00.000Z'], // a month written with three digits
  // not dates
  ['2010-11-02T08:00:00-07:75', null], // an offset's minutes past 59
  ['2010-11-02T08:00:00+25:00', null],
  ['10-13-02', null],
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
