// Launches Debian's Chromium headless through playwright-core, with the flags this closed network needs.
import { chromium } from 'playwright-core';

export async function launch() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
