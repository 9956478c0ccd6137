/**
 * A lease's tick, run on demand and never two at once: a slow NATS would otherwise pile ticks up.
 * A trigger while one runs runs one more right after it; a trigger while `active` says no is dropped.
 */
export class SerialTicks {
  readonly #tick: () => Promise<void>;
  readonly #active: () => boolean;
  #running = false;
  #again = false;

  constructor(tick: () => Promise<void>, active: () => boolean) {
    this.#tick = tick;
    this.#active = active;
  }

  trigger(): void {
    if (!this.#active()) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    void this.#tick().finally(() => {
      this.#running = false;
      if (this.#again) {
        this.#again = false;
        this.trigger();
      }
    });
  }
}
