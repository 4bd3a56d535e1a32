#!/usr/bin/env bash
# The PostgreSQL tests (test/helpers/pg-cluster.ts) start a throwaway cluster from Debian's
# server binaries (initdb, pg_ctl); this installs the `postgresql` package when they are missing
# (as root, with apt), and otherwise says how. No running server is assumed or used.
set -euo pipefail
if [ -n "${FOREST_PG_BIN:-}" ] && [ -x "${FOREST_PG_BIN}/initdb" ]; then exit 0; fi
if compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's postgresql for the PostgreSQL tests…" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  exit 0
fi
echo "the PostgreSQL tests need PostgreSQL's server binaries: run 'sudo apt-get install postgresql' (Debian/Ubuntu), or set FOREST_PG_BIN to the folder holding initdb and pg_ctl" >&2
exit 1
