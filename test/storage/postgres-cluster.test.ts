import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeArticle, type ScriptedEdit } from '../../src/synthetic/articles.js';
import { SyntheticWeb } from '../../src/synthetic/server.js';
import { finished, forest, startForest, waitFor, type CliResult } from '../helpers/cli.js';
import { startCluster } from '../helpers/pg-cluster.js';
import { workspace } from '../helpers/setup.js';

/*
 * Several daemons, one PostgreSQL archive (issue #51 item 4): two, then three `forest run`
 * processes on one archive against the loopback web share the work through claims. Zero double
 * work: no page captured twice, no feed polled twice within its interval, no article stored
 * twice, a host's pages and feeds no closer than perHostDelay and a page's requisites no closer
 * than their own pause, as one daemon's host queue spaces them — also when one daemon is killed
 * with SIGKILL mid-run, whose claims the others take over once they expire. Asserted from the
 * daemons' logs, the synthetic web's request log and the CLI's --json, never SQL.
 */

const SECOND = 1000;
const PER_HOST_DELAY = 250;
/** capture.requisites.perHostDelay's default: a page's pictures and stylesheets come this far after the request before them. */
const REQUISITE_DELAY = 100;
/** A site's files and pictures, and whatever the synthetic web's CDN serves (fonts for every site's pages). */
const isRequisite = (site: string, path: string) => site === 'cdn' || path.startsWith('/assets/') || path.startsWith('/images/');
const cluster = startCluster();

interface LogLine { msg: string; url?: string; feed?: string; time: number | string }
const logLines = (run: CliResult): LogLine[] => (run.stdout + run.stderr).split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as LogLine);
const lines = <T>(stdout: string) => stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as T);
const timeOf = (line: LogLine) => (typeof line.time === 'number' ? line.time : Date.parse(line.time));

/**
 * Requests to one host closer together than the host queue allows (net/host-queue.ts), whichever
 * daemon sent them: pages and feeds perHostDelay apart from each other, and any request a
 * requisite's pause after the one before it (a little slack for timer granularity).
 */
function tooClose(web: SyntheticWeb): string[] {
  const bySite = new Map<string, Array<{ at: number; path: string }>>();
  for (const request of web.requests) bySite.set(request.site, [...(bySite.get(request.site) ?? []), request]);
  const closer = (site: string, requests: Array<{ at: number }>, delay: number, what: string) =>
    requests.slice(1).flatMap((request, i) => (request.at - requests[i]!.at < delay - 30 ? [`${site}: ${what} ${request.at - requests[i]!.at} ms apart`] : []));
  return [...bySite].flatMap(([site, requests]) => {
    const sorted = requests.sort((a, b) => a.at - b.at);
    return [...closer(site, sorted.filter((request) => !isRequisite(site, request.path)), PER_HOST_DELAY, 'pages or feeds'), ...closer(site, sorted, REQUISITE_DELAY, 'requests')];
  });
}

/** What each daemon logged about a page and about wrappers, in time order: the story a failed version count needs told. */
function storyOf(logs: LogLine[][], url: string): string {
  const path = new URL(url).pathname.split('/').pop()!;
  return logs.flatMap((log, daemon) => log.filter((line) => JSON.stringify(line).includes(path) || /wrapper/.test(line.msg)).map((line) => ({ daemon, line })))
    .sort((a, b) => timeOf(a.line) - timeOf(b.line)).map(({ daemon, line }) => `daemon ${daemon + 1}: ${JSON.stringify(line)}`).join('\n');
}

/**
 * Runs `daemons` daemons on one new archive until `until` holds (then each is stopped with SIGINT,
 * as pm2 stops it), or for `seconds` at most (a loaded machine's bound: they stop by themselves,
 * and the test's assertions say what was left undone).
 */
async function shareOneArchive(web: SyntheticWeb, daemons: number, name: string, options: { kill?: boolean; seconds: number; whileRunning?: (args: string[]) => Promise<void>; until: (args: string[], killedAt: number | null) => Promise<boolean> }) {
  const url = await cluster.createDatabase(name);
  const sites = [web.site('ledger'), web.site('orbit'), web.site('fieldnotes')];
  const ws = workspace(sites.map((site) => ({ url: site.feedUrl, title: site.definition.name })), {
    http: { perHostDelay: `${PER_HOST_DELAY}ms` }, revisit: { after: Array.from({ length: 40 }, () => '2s') },
  });
  const args = [...ws.args, '--db', url];
  const processes = Array.from({ length: daemons }, () => startForest([...args, 'run', '--exit-after', `${options.seconds}s`]));
  let killedAt: number | null = null;
  if (options.kill) {
    await waitFor(async () => lines<unknown>((await forest([...args, 'articles', '--json'])).stdout).length >= 4, 30_000, 'the first articles');
    processes[0]!.kill('SIGKILL');
    killedAt = Date.now();
  }
  await options.whileRunning?.(args);
  const done = Promise.all(processes.map((child) => finished(child)));
  let stopped = false;
  void done.then(() => (stopped = true));
  // Asked once a second: each question spawns `forest` twice, CPU the daemons need.
  const pace = () => new Promise((resolve) => setTimeout(resolve, SECOND));
  await waitFor(async () => stopped || (await pace(), await options.until(args, killedAt)), options.seconds * SECOND, 'the work to be done').catch(() => undefined);
  for (const child of processes) if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  const runs = await done;
  return { args, runs, killedAt, sites };
}

test('two daemons share one archive: every page captured once, polls within their interval, hosts polite, versions right', async () => {
  const edits: ScriptedEdit[] = [
    { site: 'ledger', index: 7, after: 3 * SECOND, kind: 'correct-word' },
    { site: 'orbit', index: 6, after: 4 * SECOND, kind: 'add-paragraph' },
  ];
  // Edits count from the first captures of the pages they edit (a loaded machine may take seconds to start two daemons).
  const web = new SyntheticWeb({ edits, holdEdits: 'until-fetched' });
  await web.start();
  try {
    let shown = '';
    const { args, runs } = await shareOneArchive(web, 2, 'two_daemons', {
      seconds: 90,
      // Done: every item seen so far archived, and both scripted edits found as a version.
      until: async (args) => {
        const items = lines<{ items: number }>((await forest([...args, 'status', '--json'])).stdout);
        const articles = lines<{ url: string; versions: number; feed: string }>((await forest([...args, 'articles', '--json'])).stdout);
        return items.length === 3 && items.every((feed) => feed.items > 0) && articles.length === items.reduce((sum, feed) => sum + feed.items, 0)
          && edits.every((edit) => articles.some((a) => a.feed === web.site(edit.site).feedUrl && a.url.endsWith(makeArticle(edit.site, edit.index, 0).slug) && a.versions === 2));
      },
      // forest status shows every daemon on the archive.
      whileRunning: (args) => waitFor(async () => /daemon 2 of 2: running/.test(shown = (await forest([...args, 'status'])).stdout), 15_000, 'status showing both daemons'),
    });
    assert.match(shown, /daemon 1 of 2: running \(pid \d+ on /);
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    const logs = runs.map(logLines);
    const captured = logs.flat().filter((line) => line.msg === 'captured').map((line) => line.url!);
    assert.deepEqual(captured.filter((url, i) => captured.indexOf(url) !== i), [], 'no page captured twice');
    assert.ok(logs.every((log) => log.some((line) => line.msg === 'captured' || line.msg === 'polled')), 'each daemon did part of the work');
    // A feed is polled by one daemon at a time and not again within its interval (schedule.minInterval: 1 s).
    const polls = new Map<string, number[]>();
    for (const line of logs.flat().filter((entry) => entry.msg === 'polled')) polls.set(line.feed!, [...(polls.get(line.feed!) ?? []), timeOf(line)]);
    for (const [feed, times] of polls) {
      const sorted = times.sort((a, b) => a - b);
      const gaps = sorted.slice(1).map((at, i) => at - sorted[i]!);
      assert.ok(gaps.every((gap) => gap >= 900), `${feed} polled ${gaps.filter((gap) => gap < 900).length} times within its interval`);
    }
    assert.deepEqual(tooClose(web), [], `a host's pages and feeds ${PER_HOST_DELAY} ms apart, any two requests ${REQUISITE_DELAY} ms`);

    const feeds = lines<{ items: number }>((await forest([...args, 'status', '--json'])).stdout);
    const items = feeds.reduce((sum, feed) => sum + feed.items, 0);
    const articles = lines<{ id: number; url: string; versions: number; feed: string }>((await forest([...args, 'articles', '--json'])).stdout);
    assert.equal(articles.length, items, 'one article per item: none stored twice');
    assert.equal(new Set(captured).size, items, 'every item\'s page captured');
    const servedRevisions = web.servedRevisions();
    for (const article of articles) {
      const site = ['ledger', 'orbit', 'fieldnotes'].find((slug) => article.feed === web.site(slug).feedUrl)!;
      const revisions = servedRevisions.get(`${site}${new URL(article.url).pathname.replace(/^\/r\//, '/articles/')}`) ?? [];
      const distinct = revisions.filter((revision, i) => i === 0 || revision !== revisions[i - 1]).length;
      // The story is read from the logs only for an article whose count is wrong (it walks every line).
      if (article.versions !== distinct) assert.equal(article.versions, distinct, `${article.url}: ${article.versions} versions for revisions ${revisions.join(',')}; what the daemons said of it and of wrappers:\n${storyOf(logs, article.url)}`);
    }
    for (const edit of edits) {
      const article = articles.find((a) => a.feed === web.site(edit.site).feedUrl && a.url.endsWith(makeArticle(edit.site, edit.index, 0).slug));
      assert.equal(article?.versions, 2, `${edit.site}#${edit.index}: the edit is one version`);
    }
    const check = await forest([...args, 'check', '--json']);
    assert.equal(check.code, 0, check.stdout);
  } finally {
    await web.stop();
  }
});

test('three daemons, one killed with SIGKILL: its claims are taken over once they expire, nothing lost or done twice', async () => {
  const web = new SyntheticWeb();
  await web.start();
  try {
    const { args, runs, killedAt } = await shareOneArchive(web, 3, 'three_daemons', {
      kill: true, seconds: 85,
      // Done: the killed daemon's claims taken over — no page left waiting, every feed polled since the kill, every item archived.
      until: async (args, killed) => {
        const feeds = lines<{ items: number; pendingPages: number; lastPoll: string | null }>((await forest([...args, 'status', '--json'])).stdout);
        const articles = lines<unknown>((await forest([...args, 'articles', '--json'])).stdout);
        return killed !== null && feeds.length === 3 && feeds.every((feed) => feed.pendingPages === 0 && feed.lastPoll !== null && Date.parse(feed.lastPoll) > killed)
          && articles.length === feeds.reduce((sum, feed) => sum + feed.items, 0);
      },
    });
    assert.equal(runs[0]!.signal, 'SIGKILL');
    for (const run of runs.slice(1)) assert.equal(run.code, 0, run.stderr);
    const logs = runs.map(logLines);
    const captured = logs.flat().filter((line) => line.msg === 'captured').map((line) => line.url!);
    assert.deepEqual(captured.filter((url, i) => captured.indexOf(url) !== i), [], 'no page captured twice');
    assert.deepEqual(tooClose(web), [], `a host's pages and feeds ${PER_HOST_DELAY} ms apart, any two requests ${REQUISITE_DELAY} ms`);
    const feeds = lines<{ items: number; pendingPages: number; lastPoll: string }>((await forest([...args, 'status', '--json'])).stdout);
    const items = feeds.reduce((sum, feed) => sum + feed.items, 0);
    assert.equal(feeds.reduce((sum, feed) => sum + feed.pendingPages, 0), 0, 'no page left waiting: the killed daemon\'s claims were taken over');
    // Within two minutes of the kill, every feed was polled again by the daemons left.
    assert.ok(feeds.every((feed) => Date.parse(feed.lastPoll) > killedAt!), JSON.stringify(feeds.map((feed) => feed.lastPoll)));
    const articles = lines<{ id: number }>((await forest([...args, 'articles', '--json'])).stdout);
    assert.equal(articles.length, items, 'one article per item: none lost, none stored twice');
    const check = await forest([...args, 'check', '--json']);
    assert.equal(check.code, 0, check.stdout);
  } finally {
    await web.stop();
  }
});

test('the database is the list: two daemons started with different files never flip a feed, and an edit on one machine reaches the archive as an edit', async () => {
  const url = await cluster.createDatabase('two_lists');
  const dead = (n: number) => `http://127.0.0.1:9/feed-${n}.xml`;
  const one = workspace([{ url: dead(1) }, { url: dead(2) }]);
  const two = workspace([{ url: dead(2) }, { url: dead(3), enabled: false }]);
  const run = (ws: { args: string[] }) => forest([...ws.args, '--db', url, 'run', '--exit-after', '2s']);
  const feeds = async () => new Map(lines<{ url: string; enabled: boolean }>((await forest([...one.args, '--db', url, 'feeds', 'list', '--json'])).stdout).map((feed) => [feed.url, feed.enabled]));
  const [first, second] = await Promise.all([run(one), run(two)]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(await feeds(), new Map([[dead(1), true], [dead(2), true], [dead(3), false]]), 'each file added its feeds; none was removed or flipped');
  // Machine one disables feed 2 in its file; machine two's file still says enabled, and its daemon restarts.
  assert.equal((await forest([...one.args, '--db', url, 'feeds', 'disable', dead(2)])).code, 0);
  assert.equal((await run(two)).code, 0);
  assert.equal((await run(one)).code, 0);
  assert.deepEqual(await feeds(), new Map([[dead(1), true], [dead(2), false], [dead(3), false]]), 'the edit stands: no daemon\'s start undid it');
  // Machine two removes feed 3: it is unsubscribed for all, though machine one never listed it.
  assert.equal((await forest([...two.args, '--db', url, 'feeds', 'remove', dead(3)])).code, 0);
  assert.deepEqual(await feeds(), new Map([[dead(1), true], [dead(2), false]]));
});
