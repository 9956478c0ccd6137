import type { Update } from "grammy/types";
import type { GatewayAttachment, GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { sessionKey } from "../../../operators/dispatch/sessionKey.js";
import type { Logger } from "../../log/logger.js";
import { ConversationOrder } from "./conversationOrder.js";
import type { FileDownloads } from "./fileDownloads.js";
import type { MediaItem } from "./messageMedia.js";
import { readUpdate, type UpdateReading } from "./updateEvent.js";

export interface UpdateIntakeOptions {
  readonly downloads: FileDownloads;
  /** Where each event goes (the port's `events`). */
  readonly emit: (event: GatewayEvent) => void;
  readonly logger: Logger;
}

interface Waiting {
  readonly settled: Promise<boolean>;
  readonly resolve: (settled: boolean) => void;
}

/**
 * Updates into events, for polling and the webhook alike: each update read (`readUpdate`), its
 * files fetched, its event emitted in its conversation's order, and its caller told when the edge
 * is done with it (`settled`) — only then may Telegram hear the update was received. A tap on a
 * button is an update like a message: emitted in its conversation's order, confirmed once settled.
 */
export class UpdateIntake {
  readonly #options: UpdateIntakeOptions;
  readonly #order = new ConversationOrder();
  /** Events emitted or about to be, by event id, until the edge settles them. */
  readonly #waiting = new Map<string, Waiting>();
  #closed = false;

  constructor(options: UpdateIntakeOptions) {
    this.#options = options;
  }

  /**
   * Takes one update. Resolves `true` once the edge is done with its event (queued, skipped,
   * denied), at once for an update that makes none, and `false` when the intake closed first (the
   * update must not be confirmed). The same update taken again while its event is under way (a
   * webhook retry) waits for that event rather than making a second.
   */
  take(update: Update): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    const reading = readOrSkip(update);
    if (reading.kind === "skip") {
      this.#options.logger.debug({ reason: reading.reason, update_id: update.update_id }, "telegram update skipped");
      return Promise.resolve(true);
    }
    const { event, media } = reading;
    const under = this.#waiting.get(event.event_id);
    if (under !== undefined) {
      this.#options.logger.debug({ reason: "under_way", update_id: update.update_id }, "telegram update taken again while its event is under way");
      return under.settled;
    }
    let resolve!: (settled: boolean) => void;
    const settled = new Promise<boolean>((done) => (resolve = done));
    this.#waiting.set(event.event_id, { settled, resolve });
    const ready = media.length === 0 ? event : this.#withMedia(event, media);
    this.#order.after(sessionKey(event), ready, (complete) => {
      if (!this.#closed) this.#options.emit(complete);
    });
    return settled;
  }

  /** The edge is done with `event`: its update may be confirmed. */
  settled(event: GatewayEvent): void {
    const waiting = this.#waiting.get(event.event_id);
    if (waiting === undefined) return;
    this.#waiting.delete(event.event_id);
    waiting.resolve(true);
  }

  /** Emits nothing more; every update still under way resolves `false`. */
  close(): void {
    this.#closed = true;
    for (const waiting of this.#waiting.values()) waiting.resolve(false);
    this.#waiting.clear();
  }

  async #withMedia(event: GatewayEvent, media: readonly MediaItem[]): Promise<GatewayEvent> {
    const attachments: GatewayAttachment[] = await Promise.all(media.map((item) => (item.kind === "download" ? this.#options.downloads.attachment(item) : item.attachment)));
    return { ...event, content: { ...event.content, attachments } };
  }
}

/** `readUpdate`, with an update that is not shaped as Telegram documents one (a forged webhook call) skipped as `malformed`. */
function readOrSkip(update: Update): UpdateReading {
  try {
    return readUpdate(update);
  } catch {
    return { kind: "skip", reason: "malformed" };
  }
}
