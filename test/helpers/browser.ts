import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium (scripts/install-chromium.sh, which `npm test` runs first), driven by
 * playwright-core. Headless as root in a closed network: no sandbox of Chromium's own, nothing
 * that phones home.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env['FOREST_CHROMIUM'] ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** The archive's own hosts on loopback: the app's, and the captures' under the loopback's other name. */
export const isLoopbackHost = (hostname: string) => hostname === '127.0.0.1' || hostname === 'localhost';
