/**
 * One collection of the metrics for every scrape waiting at once: 10,000 pipelined scrapes were
 * 10,000 collections and froze the event loop for 15 s. The listener reads one request per
 * connection per turn of the loop, so a collection is shared by at most one scrape per connection.
 *
 * No answer is older than its request: a scrape waits for a collection that starts after it
 * arrived, never joins one already running. Prometheus stamps a scrape's samples with the time it
 * asked; a rendering cached for a while would hand two scrapes close together the same values
 * under different stamps, and a `rate()` over them would see a counter stand still.
 */
export class SharedScrape {
  readonly #collect: () => Promise<string>;
  /** The next collection, not started yet: every scrape asking now waits for it. */
  #queued: Promise<Buffer> | undefined;
  /** The collection reading the metrics now. */
  #running: Promise<Buffer> | undefined;

  /** `collect` renders the exposition; its rejection reaches every scrape that waited for it. */
  constructor(collect: () => Promise<string>) {
    this.#collect = collect;
  }

  /** The exposition as bytes, encoded once and written as is to every scrape that waited for it. */
  next(): Promise<Buffer> {
    this.#queued ??= this.#after(this.#running);
    return this.#queued;
  }

  async #after(running: Promise<Buffer> | undefined): Promise<Buffer> {
    await running?.catch(() => undefined);
    // The scrapes read in this turn of the loop (from every connection that had one) wait too.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const self = this.#queued;
    this.#queued = undefined;
    this.#running = self;
    try {
      return Buffer.from(await this.#collect());
    } finally {
      if (this.#running === self) this.#running = undefined;
    }
  }
}
