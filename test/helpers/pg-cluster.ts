import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import pg from 'pg';

/**
 * A throwaway PostgreSQL cluster for one test file: Debian's server binaries (initdb, pg_ctl;
 * scripts/install-postgresql.sh installs them), a data folder and socket in a temporary folder,
 * no TCP port, trust authentication on that socket, fsync off (nothing here outlives the file).
 * PostgreSQL refuses to run as root: as root the cluster runs as the `postgres` user. Stopped
 * and removed when the file's tests end; no running server is assumed or touched.
 */
export interface Cluster {
  /** The socket folder: the `host` of a connection. */
  socket: string;
  port: number;
  /** The superuser the cluster was made with (trust authentication on its socket). */
  superuser: string;
  /** The folder of PostgreSQL's programs (createuser, createdb, psql too). */
  bin: string;
  /** postgres://…?host=<socket> for a new empty database `name`. */
  createDatabase(name: string): Promise<string>;
  /** pg_ctl stop/start: the same cluster and data, every connection cut (a server restart). */
  restart(): void;
  stop(): void;
}

function serverBin(): string {
  const fromEnv = process.env['FOREST_PG_BIN'];
  if (fromEnv && existsSync(join(fromEnv, 'initdb'))) return fromEnv;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions[0]) throw new Error("PostgreSQL's server binaries are missing: install the Debian package `postgresql` (bash scripts/install-postgresql.sh), or set FOREST_PG_BIN");
  return join(root, versions[0], 'bin');
}

/** A cluster for this test file: stopped and removed when its tests end. */
export function startCluster(): Cluster {
  const cluster = launchCluster();
  after(() => cluster.dispose());
  return cluster;
}

/** A throwaway cluster the caller disposes of (a benchmark, outside node:test). */
export function launchCluster(): Cluster & { dispose(): void } {
  const bin = serverBin();
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'forest-pg-'));
  const data = join(dir, 'data');
  const user = asRoot ? 'postgres' : userInfo().username;
  if (asRoot) {
    const ids = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
    chownSync(dir, Number(ids), Number(gid));
  }
  chmodSync(dir, 0o700);
  const run = (tool: string, args: string[]) => {
    const [command, full] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
    execFileSync(command, full, { stdio: ['ignore', 'pipe', 'pipe'] });
  };
  const port = 5432;
  run('initdb', ['-D', data, '-A', 'trust', '-U', user, '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  // FOREST_PG_STATEMENTS=1 (a benchmark's diagnosis): pg_stat_statements loaded, so that the
  // statements taking the server's time can be read while it runs (CREATE EXTENSION, then its view).
  const statements = process.env['FOREST_PG_STATEMENTS'] ? ' -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all' : '';
  const options = `-c listen_addresses='' -c unix_socket_directories='${dir}' -p ${port} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200${statements}`;
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', 'start']);
  start();
  let running = true;
  const stop = () => {
    if (!running) return;
    running = false;
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // already stopped
    }
  };
  return {
    dispose() {
      stop();
      if (!process.env['FOREST_TEST_KEEP']) rmSync(dir, { recursive: true, force: true });
    },
    socket: dir,
    port,
    superuser: user,
    bin,
    async createDatabase(name) {
      const client = new pg.Client({ host: dir, port, user, database: 'postgres' });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return `postgres://${encodeURIComponent(user)}@localhost:${port}/${encodeURIComponent(name)}?host=${encodeURIComponent(dir)}`;
    },
    restart() {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      start();
    },
    stop,
  };
}
