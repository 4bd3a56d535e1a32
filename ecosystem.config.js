// pm2 process file: `pm2 start ecosystem.config.js` runs the archiver and restarts it if it
// crashes. The kill timeout is longer than `shutdown.deadline` (10 s by default), so that on
// `pm2 stop`/`pm2 reload` in-flight polls and captures can finish before pm2 sends SIGKILL.
// Your settings: `config/settings.yaml` (only the keys you change; `config/default.yaml` documents
// them all), or the file FOREST_CONFIG names. Without either the daemon runs on the defaults, and
// says so in its log and in `forest status`.
// (An ES module, as the whole package is: pm2 require()s it, which Node ≥ 20.19 allows, and
// reads its `apps` export.)
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const settings = resolve(import.meta.dirname, process.env.FOREST_CONFIG ?? 'config/settings.yaml');
const config = existsSync(settings) ? ['--config', settings] : [];
const serve = process.env.FOREST_SERVE === '1' ? ['--serve'] : [];

export const apps = [
  {
    name: 'forest',
    script: 'bin/forest.js',
    // V8's helper threads (garbage collection, compilation), shared by the main thread and the
    // pool: one, not Node's default of four. The pool already runs a thread per core, so more
    // helpers only contend with it; in bench:scale (10,000 feeds, 2 cores) one helper kept the
    // resident maximum at 484–507 MB against 553–566 MB with four (three alternated pairs), CPU
    // per page within the machine's spread (README, *Performance*).
    // And a heap is collected in full once it has grown by half past what the last full
    // collection kept. V8 sizes that step to spend at most 3% of the heap's own thread in
    // collection, counting the concurrent marking on the helper threads as free — which it is
    // not when the pool keeps every core busy — and caps it near 1.3× for the pool's bounded heaps.
    // In bench:scale that meant a full collection every 0.4 s on the main thread (at ~50 MB,
    // 38 MB kept) and every second on each worker (`--trace-gc`), and the helper thread, marking
    // and sweeping, took 15% of the process's CPU (`perf`). See README, *Performance*.
    // bin/forest.js's first line and the systemd unit in the README pass the same flags.
    node_args: ['--v8-pool-size=1', '--heap-growing-percent=50'],
    // `FOREST_SERVE=1 pm2 start ecosystem.config.js` also serves the web app and the API
    // (serve.host:serve.port) from this process (`forest run --serve`); or start `forest serve`
    // as a process of its own (it reads the same database).
    args: ['run', ...config, ...serve],
    cwd: import.meta.dirname,
    exec_mode: 'fork',
    instances: 1, // one process: SQLite is the single source of state
    autorestart: true,
    exp_backoff_restart_delay: 1000,
    max_restarts: 50,
    kill_timeout: 15000,
    max_memory_restart: '1G',
    out_file: 'data/logs/forest.out.log',
    error_file: 'data/logs/forest.err.log',
    merge_logs: true,
    env: { NODE_ENV: 'production', FOREST_LOG_PRETTY: 'false' },
  },
];
