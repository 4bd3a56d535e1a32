import { join, resolve } from 'node:path';
import { parse as parseYamlScalar } from 'yaml';
import { z } from 'zod';
import { isAddressOrRange } from '../net/address-policy.js';
import { PROJECT_ROOT } from '../util/project-root.js';
import { parseDuration, parseSize } from '../util/units.js';
import { ConfigError, fieldName } from './errors.js';
import { issueLocation, lineOf, readYamlFile, type YamlFile } from './yaml-file.js';

/** The settings file shipped with Forest; every key has its default and its documentation there. */
export const DEFAULT_SETTINGS_FILE = join(PROJECT_ROOT, 'config', 'default.yaml');

const duration = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const millis = parseDuration(value);
  if (millis === undefined) {
    ctx.addIssue({ code: 'custom', message: `not a duration: ${JSON.stringify(value)} (use e.g. 30s, 5m, 2h, 1d)` });
    return z.NEVER;
  }
  return millis;
});

const size = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const count = parseSize(value);
  if (count === undefined) {
    ctx.addIssue({ code: 'custom', message: `not a size: ${JSON.stringify(value)} (use e.g. 512KB, 10MB)` });
    return z.NEVER;
  }
  return count;
});

const settingsSchema = z.strictObject({
  subscriptions: z.string().min(1),
  database: z.strictObject({
    path: z.string().min(1),
    url: z.string().regex(/^postgres(ql)?:\/\//, 'a PostgreSQL URL starts with postgres:// (e.g. postgres://forest@db.example/forest), or leave it null for the SQLite file at database.path').nullable(),
    maxSize: z.union([z.literal('unlimited'), size]),
  }),
  http: z.strictObject({
    userAgent: z.string().min(1),
    connectTimeout: duration,
    timeout: duration,
    maxBodySize: size,
    maxRedirects: z.number().int().min(0).max(50),
    concurrency: z.number().int().min(1).max(256),
    perHostDelay: duration,
    allowPrivateNetworks: z.union([
      z.boolean(),
      z.array(
        z.string().superRefine((value, ctx) => {
          if (!isAddressOrRange(value)) ctx.addIssue({ code: 'custom', message: `not an address or CIDR range: ${JSON.stringify(value)} (use e.g. 127.0.0.1 or 10.1.0.0/16)` });
        }),
      ),
    ]),
  }),
  schedule: z.strictObject({
    defaultInterval: duration,
    minInterval: duration,
    maxInterval: duration,
    overflowRisk: z.number().gt(0).lt(1),
    delayCost: z.number().gt(0),
    delayTarget: duration,
    pollsPerItem: z.number().gt(0),
    jitter: z.number().min(0).max(0.5),
  }),
  capture: z.strictObject({
    enabled: z.boolean(),
    maxAttempts: z.number().int().min(1),
    retryDelay: duration,
    requisites: z.strictObject({
      kinds: z.array(z.enum(['images', 'styles', 'media'])),
      maxBytes: size,
      maxBytesPerCapture: size,
      cssDepth: z.number().int().min(0).max(5),
      concurrency: z.number().int().min(1).max(64),
      perHostDelay: duration,
      timeout: duration,
      recheckAfter: duration,
    }),
  }),
  extract: z.strictObject({
    enabled: z.boolean(),
    learnAfter: z.number().int().min(2),
    maxBytes: size,
  }),
  revisit: z.strictObject({
    enabled: z.boolean(),
    after: z.array(duration).min(1),
    /** A check that got no answer is retried after this, doubling with each failure in a row (schedule/revisit.ts). */
    retryDelay: duration,
  }),
  shutdown: z.strictObject({ deadline: duration }),
  workers: z.union([z.literal('auto'), z.number().int().min(0).max(64)]),
  retention: z.strictObject({
    polls: z.union([z.literal('never'), duration]),
    checks: z.union([z.literal('never'), duration]),
  }),
  serve: z.strictObject({
    host: z.string().min(1),
    port: z.number().int().min(0).max(65535),
    token: z.string().min(16, 'a token this short is guessable: use at least 16 characters (e.g. `openssl rand -hex 32`)').nullable(),
    public: z.boolean(),
    capturePort: z.number().int().min(0).max(65535).nullable(),
    captureOrigin: z.string().regex(/^https?:\/\/[^/]+$/, 'an origin: scheme and host, e.g. https://captures.archive.example.org').nullable(),
    publicUrl: z.string().regex(/^https?:\/\/[^/?#]+\/?$/, 'the app\'s address as browsers reach it: scheme and host, e.g. https://archive.example.org').nullable(),
    allowedHosts: z.array(z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[^\s/:@[\]]+)$/, 'a host name or address without scheme or port, e.g. archive.example.org')).nullable(),
    timeouts: z.strictObject({ headers: duration, request: duration, idle: duration }),
  }),
  notify: z.strictObject({
    webhooks: z.array(z.strictObject({
      url: z.string().regex(/^https?:\/\/[^/]+/, 'an http(s) URL, e.g. https://hooks.example.org/forest'),
      secret: z.string().min(16, 'the secret signs every notification: use at least 16 characters (e.g. `openssl rand -hex 32`)'),
      events: z.array(z.enum(['article', 'version', 'gap', 'feed'])).min(1).default(['article', 'version', 'gap', 'feed']),
      feeds: z.array(z.string()).optional(),
      tags: z.array(z.string()).optional(),
    })),
    /** The first retry of a failed delivery waits this long; each next one twice as long, up to `maxRetryDelay`. */
    retryDelay: duration,
    maxRetryDelay: duration,
    timeout: duration,
  }),
  websub: z.strictObject({
    callbackUrl: z.string().regex(/^https?:\/\/[^/?#]+(\/[^?#]*)?$/, 'the address at which a hub reaches `forest serve`, e.g. https://archive.example.org').nullable(),
    leaseSeconds: z.number().int().min(60).max(365 * 86400),
    pollInterval: duration,
    maxPushBytes: size,
    maxConcurrentPushes: z.number().int().min(1).max(64),
  }),
  log: z.strictObject({
    level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']),
    pretty: z.union([z.boolean(), z.literal('auto')]),
  }),
});

/** Durations are in milliseconds and sizes in bytes once loaded. */
export type Settings = z.output<typeof settingsSchema> & {
  /** The settings file read over the defaults (`--config`), absolute; absent: the defaults alone. */
  file?: string;
};

/** Whether a `--db` value (or `forest copy`'s SOURCE/TARGET) names a PostgreSQL archive rather than a SQLite file. */
export const isPostgresUrl = (value: string): boolean => /^postgres(ql)?:\/\//.test(value);

export interface LoadOptions {
  /** `--config FILE`: overrides the shipped defaults. */
  configFile?: string | undefined;
  /** `--db PATH` (overrides `database.path`) or `--db postgres://…` (overrides `database.url`). */
  databasePath?: string | undefined;
  env?: NodeJS.ProcessEnv;
}

type Tree = { [key: string]: unknown };
const isTree = (value: unknown): value is Tree => typeof value === 'object' && value !== null && !Array.isArray(value);

function merge(base: Tree, override: Tree): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(override)) {
    out[key] = isTree(value) && isTree(base[key]) ? merge(base[key], value) : value;
  }
  return out;
}

/** `perHostDelay` → `PER_HOST_DELAY`. */
const envKey = (path: string[]) => `FOREST_${path.map((part) => part.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()).join('_')}`;

/** Every leaf of the defaults, as the environment variable that sets it. */
function environmentOverrides(defaults: Tree, env: NodeJS.ProcessEnv): { tree: Tree; names: Map<string, string> } {
  const tree: Tree = {};
  const names = new Map<string, string>();
  const walk = (node: Tree, path: string[]) => {
    for (const [key, value] of Object.entries(node)) {
      const here = [...path, key];
      if (isTree(value)) {
        walk(value, here);
        continue;
      }
      const raw = env[envKey(here)];
      if (raw === undefined) continue;
      let target = tree;
      for (const part of path) target = (target[part] ??= {}) as Tree;
      target[key] = parseYamlScalar(raw) ?? raw;
      names.set(here.join('.'), envKey(here));
    }
  };
  walk(defaults, []);
  return { tree, names };
}

function has(tree: unknown, path: ReadonlyArray<PropertyKey>): boolean {
  let node = tree;
  for (const key of path) {
    if (!isTree(node) || !(String(key) in node)) return false;
    node = node[String(key)];
  }
  return true;
}

/**
 * Settings = shipped defaults ← `--config FILE` ← FOREST_* environment ← `--db`. A bad value is
 * reported against the source it came from, with its line.
 */
export function loadSettings(options: LoadOptions = {}): Settings {
  const defaults = readYamlFile(DEFAULT_SETTINGS_FILE);
  if (!isTree(defaults.data)) throw new ConfigError(defaults.file, 1, null, 'expected a mapping of settings');
  const sources: YamlFile[] = [defaults];
  let merged: Tree = defaults.data;
  if (options.configFile) {
    const override = readYamlFile(options.configFile);
    if (override.data !== null && override.data !== undefined) {
      if (!isTree(override.data)) throw new ConfigError(override.file, 1, null, 'expected a mapping of settings');
      merged = merge(merged, override.data);
    }
    sources.push(override);
  }
  const env = environmentOverrides(defaults.data, options.env ?? process.env);
  merged = merge(merged, env.tree);
  if (options.databasePath) {
    merged = merge(merged, { database: isPostgresUrl(options.databasePath) ? { url: options.databasePath } : { path: options.databasePath, url: null } });
  }

  const result = settingsSchema.safeParse(merged);
  if (!result.success) {
    const issue = issueLocation(result.error.issues[0]!);
    const field = fieldName(issue.path);
    const variable = env.names.get(field);
    if (variable) throw new ConfigError(`environment variable ${variable}`, null, field, issue.message);
    const source = [...sources].reverse().find((candidate) => has(candidate.data, issue.path)) ?? sources[sources.length - 1]!;
    throw new ConfigError(source.file, lineOf(source, issue.path), field || null, issue.message);
  }
  const settings = result.data;
  settings.database.path = resolve(settings.database.path);
  settings.subscriptions = resolve(settings.subscriptions);
  return options.configFile ? { ...settings, file: resolve(options.configFile) } : settings;
}
