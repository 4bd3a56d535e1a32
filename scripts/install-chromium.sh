#!/usr/bin/env bash
# The browser tests (test/browser/) drive Debian's Chromium through
# playwright-core; this installs it when it is missing (as root, with apt), and otherwise says
# how. A test tool's own browser download is not used: it cannot be fetched everywhere.
set -euo pipefail
if [ -n "${FOREST_CHROMIUM:-}" ] && [ -x "${FOREST_CHROMIUM}" ]; then exit 0; fi
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's chromium for the browser tests…" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "the browser tests need Chromium: run 'sudo apt-get install chromium' (Debian/Ubuntu), or set FOREST_CHROMIUM to a Chromium binary" >&2
exit 1
