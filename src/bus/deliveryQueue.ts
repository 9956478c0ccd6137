import { Fifo } from "../../operators/dispatch/fifo.js";

/**
 * The bus's trampoline. Every callback the bus makes (a message to a subscriber, a reply to a
 * requester, a durable delivery) runs from here, one at a time, in the order it was scheduled.
 * Outside a callback `schedule` runs the task at once; inside one it only enqueues, so a subscriber
 * that publishes, replies or acks never recurses into delivery, and a message it publishes reaches
 * every subscriber after the message being delivered now.
 */
export class DeliveryQueue {
  readonly #tasks = new Fifo<() => void>();
  #draining = false;

  schedule(task: () => void): void {
    this.#tasks.push(task);
    if (!this.#draining) this.#drain();
  }

  #drain(): void {
    this.#draining = true;
    try {
      for (let task = this.#tasks.shift(); task !== undefined; task = this.#tasks.shift()) task();
    } finally {
      // A task that throws leaves the rest queued for the next drain instead of wedging the bus.
      this.#draining = false;
    }
  }
}
