import { describe, expect, it } from "vitest";
import { SharedScrape } from "../../src/metrics/sharedScrape.js";

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("SharedScrape", () => {
  it("scrapes asking in one turn of the loop share one collection, encoded once", async () => {
    let calls = 0;
    const scrape = new SharedScrape(() => Promise.resolve(`x_total ${++calls}\n`));
    const answers = await Promise.all([scrape.next(), scrape.next(), scrape.next()]);
    expect(calls).toBe(1);
    expect(answers[0]?.toString()).toBe("x_total 1\n");
    expect(new Set(answers).size).toBe(1); // the same Buffer, not three copies
  });

  it("a scrape asking while a collection runs waits for the next one, which starts after it", async () => {
    let calls = 0;
    let release: () => void = () => undefined;
    const scrape = new SharedScrape(async () => {
      const n = ++calls;
      if (n === 1) await new Promise<void>((resolve) => (release = resolve));
      return `x_total ${n}\n`;
    });
    const first = scrape.next();
    await turn();
    await turn();
    expect(calls).toBe(1); // running, held
    const second = scrape.next();
    const third = scrape.next();
    release();
    expect((await first).toString()).toBe("x_total 1\n");
    expect((await second).toString()).toBe("x_total 2\n");
    expect(await third).toBe(await second);
    expect(calls).toBe(2);
  });

  it("a failed collection fails every scrape that waited for it; the next scrape collects again", async () => {
    let calls = 0;
    const scrape = new SharedScrape(() => (++calls === 1 ? Promise.reject(new Error("boom")) : Promise.resolve("ok\n")));
    const failed = await Promise.allSettled([scrape.next(), scrape.next()]);
    expect(failed.map((f) => f.status)).toEqual(["rejected", "rejected"]);
    expect((await scrape.next()).toString()).toBe("ok\n");
    expect(calls).toBe(2);
  });
});
