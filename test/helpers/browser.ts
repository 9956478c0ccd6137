import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/** Debian's Chromium (`apt-get install chromium`); browser tests never download one. */
export const chromiumPath = "/usr/bin/chromium";

/**
 * Whether browser suites should run. Without Chromium they are skipped with a loud warning on a
 * developer machine; under CI (`CI=true`) they run anyway, so `launchChromium` fails them.
 */
export function browserTestsEnabled(suite: string): boolean {
  if (existsSync(chromiumPath) || process.env.CI === "true") return true;
  console.warn(
    `\n!!! ${suite}: SKIPPED — ${chromiumPath} is missing. Install Debian's chromium (apt-get install chromium) to run the browser tests; CI fails without it.\n`,
  );
  return false;
}

/** Headless Debian Chromium, with the flags this machine's closed network needs (and any `extraArgs`, e.g. `--host-resolver-rules`). */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: browser tests need Debian's chromium (.ci/run installs it)`);
  return chromium.launch({
    executablePath: chromiumPath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", ...extraArgs],
  });
}
