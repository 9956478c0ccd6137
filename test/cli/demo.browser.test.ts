import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { browserTestsEnabled, launchChromium } from "../helpers/browser.js";
import { finished, spawnTurnstream, waitForLine } from "../helpers/cli.js";

// What a person sees after `npm start`: the real demo process, its chat page in headless Chromium.
describe.skipIf(!browserTestsEnabled("demo chat page"))("turnstream demo in a browser", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows flight as three bubbles about 400 ms apart, and silent as nothing with the typing indicator stopping", async () => {
    const demo = spawnTurnstream(["demo"]);
    const done = finished(demo);
    try {
      const url = (await waitForLine(demo, (line) => line.startsWith("chat page: "))).slice("chat page: ".length);
      const page = await browser.newPage();
      await page.goto(url);
      await page.locator("#status", { hasText: /^connected$/ }).waitFor({ timeout: 10_000 });

      await page.fill("#text", "flight");
      await page.click("#send");
      await page.locator(".bubble").nth(2).waitFor({ timeout: 15_000 });
      expect(await page.locator(".bubble .text").allTextContents()).toEqual(["on it", "your flight moved to 8pm", "gate B12"]);
      const at = (await page.locator(".bubble .gap").allTextContents()).map((label) => Number(/\+([\d.]+) s/.exec(label)?.[1]));
      // Bubbles leave 400 ms apart; the page sees them two hops later, labels rounded to 10 ms, so the
      // bound only says "paced, not at once" (exact pacing: virtual time and test/e2e/bubbleTurn.test.ts).
      expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(0.25);
      expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(0.25);
      await expect.poll(() => page.locator("#typing").isVisible(), { timeout: 5_000 }).toBe(false);

      await page.fill("#text", "silent");
      await page.click("#send");
      await expect.poll(() => page.locator(".mine").count()).toBe(2);
      // The turn ends with nothing to say: the broker reports it, and the indicator stops.
      await expect.poll(() => page.locator("#typing").isVisible(), { timeout: 5_000 }).toBe(false);
      expect(await page.locator(".bubble").count()).toBe(3);
    } finally {
      demo.stdin.end();
      await done;
    }
  });
});
