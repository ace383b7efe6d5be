import { chromium, type Browser } from 'playwright-core';
import { findBinary, missingMessage } from './binaries.js';

/** Debian's package; the browser tests declare it with `requireBinary('chromium', CHROMIUM_INSTALL)`. */
export const CHROMIUM_INSTALL = 'apt-get install chromium';

/**
 * Debian's Chromium driven by playwright-core (never a browser download): headless, and quiet on
 * the network — no QUIC, no component updates, no sync, nothing but the pages it is sent to.
 * Found on PATH, or at VIGIL_BIN_CHROMIUM.
 */
export async function launchChromium(): Promise<Browser> {
  const binary = findBinary('chromium', CHROMIUM_INSTALL);
  if (!binary.path) throw new Error(missingMessage(binary));
  return chromium.launch({
    executablePath: binary.path,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}
