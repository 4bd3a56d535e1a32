import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { PROJECT_ROOT } from '../../src/util/project-root.js';

/** The built command, as a user runs it (`npm test` builds first). */
export const FOREST_BIN = fileURLToPath(new URL('../../bin/forest.js', import.meta.url));

const pm2File = z.object({ apps: z.array(z.object({ node_args: z.array(z.string()).optional() })).min(1) });

/**
 * The node flags pm2 starts the daemon with (ecosystem.config.js) in the checkout at `root`, so
 * that the service test and bench:scale run the daemon as it is deployed. A checkout without the
 * file, or without flags in it, runs plain `node`.
 */
export async function serviceNodeFlags(root = PROJECT_ROOT): Promise<string[]> {
  const file = join(root, 'ecosystem.config.js');
  if (!existsSync(file)) return [];
  return pm2File.parse(await import(pathToFileURL(file).href)).apps[0]!.node_args ?? [];
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment without FOREST_* variables: a child reads only the settings a test gives it. */
export const CLEAN_ENV = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('FOREST_')));

/** Runs `forest ARGS…` to completion. */
export function forest(args: string[], options: { env?: Record<string, string>; cwd?: string; input?: string } = {}): Promise<CliResult> {
  const child = startForest(args, options);
  if (options.input !== undefined) child.stdin?.end(options.input);
  return finished(child);
}

/** Starts `forest ARGS…` and returns the process, with its output collected. */
export function startForest(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): ChildProcess & { output: { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, [FOREST_BIN, ...args], {
    cwd: options.cwd,
    env: { ...CLEAN_ENV, FOREST_LOG_PRETTY: 'false', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as ChildProcess & { output: { stdout: string; stderr: string } };
  child.output = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (child.output.stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (child.output.stderr += chunk));
  return child;
}

export function finished(child: ChildProcess & { output: { stdout: string; stderr: string } }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, ...child.output }));
  });
}

/**
 * Resolves when `predicate` holds, checking every 100 ms, or rejects after `timeoutMs`. A
 * predicate that throws counts as not yet (the daemon may still be creating the database).
 */
export async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    try {
      if (await predicate()) return;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`);
}

/**
 * `forest run` until `done` holds (see waitFor), then SIGTERM, as a service manager stops it: a run
 * of fixed length ends too soon on a loaded machine (CI, 2026-12-02).
 */
export async function runUntil(args: string[], done: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<CliResult> {
  const daemon = startForest([...args, 'run']);
  try {
    await waitFor(done, timeoutMs, what);
  } finally {
    daemon.kill('SIGTERM');
  }
  return finished(daemon);
}

/** A `forest` process started by startForest, with its output so far. */
export type ForestProcess = ReturnType<typeof startForest>;

/** Starts `forest serve ARGS…` (on a free port unless ARGS name one) and waits until both ports listen; their addresses as printed. */
export async function startServe(args: string[], options: { env?: Record<string, string> } = {}): Promise<{ server: ForestProcess; base: string; captures: string }> {
  const server = startForest(['serve', ...(args.includes('--port') ? [] : ['--port', '0']), ...args], options);
  await waitFor(() => /listening on/.test(server.output.stdout) && /archived pages from/.test(server.output.stdout), 15_000, `forest serve (stderr: ${server.output.stderr})`);
  return { server, base: /listening on (http:\/\/\S+)/.exec(server.output.stdout)![1]!, captures: /archived pages from (http:\/\/\S+)/.exec(server.output.stdout)![1]! };
}
