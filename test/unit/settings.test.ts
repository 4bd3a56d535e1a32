import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../../src/config/errors.js';
import { loadSettings } from '../../src/config/settings.js';
import { tempDir, writeFile } from '../helpers/temp.js';

const dir = tempDir();

test('the shipped defaults load, with durations in ms and sizes in bytes', () => {
  const settings = loadSettings({ env: {} });
  assert.equal(settings.schedule.defaultInterval, 30 * 60_000);
  assert.equal(settings.http.perHostDelay, 2000);
  assert.equal(settings.http.maxBodySize, 10 * 1024 * 1024);
  assert.match(settings.database.path, /data\/forest\.db$/);
});

test('--config overrides the defaults; environment overrides --config; --db overrides both', () => {
  const file = writeFile(dir, 'over.yaml', 'http:\n  perHostDelay: 5s\n  concurrency: 3\nschedule:\n  minInterval: 30\ndatabase:\n  path: /tmp/a.db\n');
  const settings = loadSettings({ configFile: file, env: { FOREST_HTTP_CONCURRENCY: '4' }, databasePath: '/tmp/b.db' });
  assert.equal(settings.http.perHostDelay, 5000);
  assert.equal(settings.http.concurrency, 4);
  assert.equal(settings.schedule.minInterval, 30_000); // bare number: seconds
  assert.equal(settings.database.path, '/tmp/b.db');
});

test('a bad value names the file, line and field', () => {
  const file = writeFile(dir, 'bad.yaml', '# comment\nhttp:\n  userAgent: me\n  timeout: soon\n');
  assert.throws(() => loadSettings({ configFile: file, env: {} }), (error: unknown) => {
    assert.ok(error instanceof ConfigError);
    assert.equal(error.file, file);
    assert.equal(error.line, 4);
    assert.equal(error.field, 'http.timeout');
    assert.match(error.message, /not a duration/);
    return true;
  });
});

test('an unknown key is an error at its line', () => {
  const file = writeFile(dir, 'unknown.yaml', 'log:\n  level: info\n  colour: true\n');
  assert.throws(() => loadSettings({ configFile: file, env: {} }), (error: unknown) => error instanceof ConfigError && error.line === 3 && error.field === 'log.colour' && /unknown/.test(error.message));
});

test('invalid YAML is reported with its line', () => {
  const file = writeFile(dir, 'broken.yaml', 'http:\n  timeout: 5s\n   bad: [\n');
  assert.throws(() => loadSettings({ configFile: file, env: {} }), (error: unknown) => error instanceof ConfigError && error.line !== null && /invalid YAML/.test(error.message));
});

test('an unclosed [ or quote is reported on the line that opens it, without a dangling colon', () => {
  const bracket = writeFile(dir, 'bracket.yaml', 'database:\n  path: x.db\nhttp: [a, b\nlog:\n  level: info\n');
  assert.throws(() => loadSettings({ configFile: bracket, env: {} }), (error: unknown) => {
    assert.ok(error instanceof ConfigError);
    assert.equal(error.line, 3);
    assert.match(error.message, /bracket\.yaml:3: invalid YAML: .*\]/);
    assert.doesNotMatch(error.message, /:$|column/);
    return true;
  });
  const quote = writeFile(dir, 'quote.yaml', 'log:\n  level: "info\nhttp:\n  timeout: 5s\n');
  assert.throws(() => loadSettings({ configFile: quote, env: {} }), (error: unknown) => error instanceof ConfigError && error.line === 2 && /quote/.test(error.message));
});

test('a bad environment variable is named', () => {
  assert.throws(() => loadSettings({ env: { FOREST_LOG_LEVEL: 'loud' } }), (error: unknown) => error instanceof ConfigError && /FOREST_LOG_LEVEL/.test(error.message) && error.field === 'log.level');
});

test('http.allowPrivateNetworks: false by default; a list must hold addresses or CIDR ranges', () => {
  assert.equal(loadSettings({ env: {} }).http.allowPrivateNetworks, false);
  const good = writeFile(dir, 'private-ok.yaml', 'http:\n  allowPrivateNetworks: [127.0.0.1/32, 10.0.0.0/8]\n');
  assert.deepEqual(loadSettings({ configFile: good, env: {} }).http.allowPrivateNetworks, ['127.0.0.1/32', '10.0.0.0/8']);
  const bad = writeFile(dir, 'private-bad.yaml', 'http:\n  allowPrivateNetworks:\n    - 127.0.0.1/32\n    - intranet\n');
  assert.throws(() => loadSettings({ configFile: bad, env: {} }), (error: unknown) => {
    assert.ok(error instanceof ConfigError);
    assert.equal(error.line, 4);
    assert.match(error.field ?? '', /^http\.allowPrivateNetworks/);
    assert.match(error.message, /not an address or CIDR range: "intranet"/);
    return true;
  });
});
