import { rustTrim } from "../../operators/delivery/text/rustWhitespace.js";

/** Sends one JSON-RPC notification over the agent's ACP connection; rejects when it could not be written. */
export type SendNotification = (method: string, params: unknown) => void | Promise<void>;

export interface BubbleSinkOptions {
  readonly sessionId: string;
  /** Bubbles per turn; later ones are not sent. */
  readonly maxBubbles: number;
  readonly send: SendNotification;
}

export interface SentBubble {
  readonly id: string;
  readonly text: string;
}

/** What one `emit` did: exactly which texts went out and which did not. */
export interface BubbleDelivery {
  readonly delivered: readonly SentBubble[];
  /** The texts that were not sent, in order. */
  readonly undelivered: readonly string[];
  /** Why `undelivered` is not empty: the per-turn cap, or a failed (or earlier failed) send. */
  readonly stopped?: "capped" | "failed";
  /** The send error, when this call's send failed. */
  readonly error?: unknown;
}

/** One bubble as an `openab_message` update, in the shape of `fixtures/sequential-message-v1.json`. */
export function openabMessageUpdate(id: string, text: string): Record<string, unknown> {
  return { sessionUpdate: "openab_message", id, content: { type: "text", text } };
}

/**
 * A turn's sequential bubbles (upstream `AcpBubbleSink`): each text goes out at once as an
 * `openab_message` session/update numbered `bubble_1..n` across the turn. Blank texts are
 * skipped. Past `maxBubbles` the rest is dropped (the turn is capped); a failed send stops this
 * and every later bubble. Make one per turn.
 */
export class BubbleSink {
  readonly #options: BubbleSinkOptions;
  #sent = 0;
  #failed = false;
  #capped = false;

  constructor(options: BubbleSinkOptions) {
    this.#options = options;
  }

  /** Bubbles sent this turn. */
  get sent(): number {
    return this.#sent;
  }

  get failed(): boolean {
    return this.#failed;
  }

  get capped(): boolean {
    return this.#capped;
  }

  /** Sends `texts` in order, each after the previous one was written. */
  async emit(texts: readonly string[]): Promise<BubbleDelivery> {
    const pending = texts.map(rustTrim).filter((text) => text !== "");
    const delivered: SentBubble[] = [];
    for (const [index, text] of pending.entries()) {
      const rest = pending.slice(index);
      if (this.#failed) return { delivered, undelivered: rest, stopped: "failed" };
      if (this.#sent >= this.#options.maxBubbles) {
        this.#capped = true;
        return { delivered, undelivered: rest, stopped: "capped" };
      }
      const id = `bubble_${this.#sent + 1}`;
      try {
        await this.#options.send("session/update", { sessionId: this.#options.sessionId, update: openabMessageUpdate(id, text) });
      } catch (error) {
        this.#failed = true;
        return { delivered, undelivered: rest, stopped: "failed", error };
      }
      this.#sent += 1;
      delivered.push({ id, text });
    }
    return { delivered, undelivered: [] };
  }
}

/**
 * The `reply` tool result for a sequential call: tells the model exactly which messages reached
 * the user, so a reply the cap cut short is not mistaken for a complete one.
 */
export function bubbleToolResult(delivery: BubbleDelivery, maxBubbles: number): string {
  const { delivered, undelivered, stopped } = delivery;
  const total = delivered.length + undelivered.length;
  if (total === 0) return "nothing was sent: every message was blank.";
  if (stopped === undefined) return `delivered ${delivered.length} of ${total} message(s) to the user.`;
  const sent = `delivered ${delivered.length} of ${total} message(s) to the user${delivered.length === 0 ? "" : `: ${JSON.stringify(delivered.map((bubble) => bubble.text))}`}.`;
  const missed = `NOT delivered: ${JSON.stringify(undelivered)}`;
  return stopped === "capped"
    ? `${sent} ${missed}, because this turn reached its limit of ${maxBubbles} message(s). Do not call reply again this turn.`
    : `${sent} ${missed}, because sending failed. Do not call reply again this turn.`;
}
