import type { ObservableInput, SchedulerLike } from "rxjs";
import type { Logger } from "../log/logger.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";
import type { Send } from "../pipeline/send.js";
import type { FileStore } from "../bus/files/fileStore.js";
import type { TriageSettings } from "../../operators/triage/triageSettings.js";
import type { TriageStore } from "../../operators/triage/triageStore.js";

/** One unit of agent work: an event, run in its session's one-at-a-time lane. */
export interface Turn {
  readonly sessionKey: string;
  readonly event: GatewayEvent;
  /** Under OpenAB batching (`per-thread` / `per-lane`): the batch `event` ends; absent otherwise. */
  readonly batch?: TurnBatch;
}

/**
 * A batched turn's arrivals (`[gateway] message_processing_mode` `per-thread` or `per-lane`): the
 * prompt packs every arrival, and reactions are anchored on the last one, which is the turn's event.
 */
export interface TurnBatch {
  /** The arrivals before the turn's event, oldest first (none for a batch of one). */
  readonly earlier: readonly GatewayEvent[];
  /** Summary lines of messages the queue cap dropped before these. */
  readonly dropped: readonly string[];
  /** The lane the batch waited in: the session key, with the sender under `per-lane`. */
  readonly laneKey: string;
  /** How long each arrival waited for this turn (ms), in arrival order, the turn's event last. */
  readonly waitMs: readonly number[];
}

/** What a turn handler may use. */
/** See `TurnContext.note`. */
export type TurnFact = "duplicate" | "agent_error" | "answer";

export interface TurnContext {
  /** Posts a message through the `beforeSend` stage and the gateway; emits the receipt once acked. */
  readonly send: Send;
  /**
   * Posts a status command (a reaction on the user's message) through `beforeSend` and the
   * gateway, outside the turn's delivery: not counted as delivered, not in the delivery ledger, and
   * still usable after the turn ended (a reaction cleared after a hold).
   */
  readonly sendStatus: Send;
  /** The bus scheduler: the only clock a turn should read (virtual in marble tests). */
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  /** Characters per message on a platform (the gateway's negotiated limit, 4096 by default). */
  readonly messageLimit: (platform: string) => number;
  /**
   * Chars the reply style adds to each message (`[delivery] response_prefix` and its separator);
   * absent: none. `messageLimit` already leaves room for them; a limit a delivery path keeps of its
   * own (`[delivery.blocks] max_chars`) must leave it too.
   */
  readonly styleChars?: number;
  /**
   * What the gateway's hello says a platform can do; undefined in legacy mode (no hello), and on a
   * worker with no edge in its process, which cannot see the hello.
   */
  readonly capabilities?: (platform: string) => PlatformCapabilities | undefined;
  /**
   * Tells the turn's counts what only the handler knows: `duplicate`, it did not run the turn
   * because the message already ran (inbound dedupe), so its events count as duplicates and not
   * as a turn; `agent_error`, the agent ended the turn in an error that was shown to the user (the
   * turn itself completes, as upstream); `answer`, the event answered a question asked in the chat
   * (or was a tap answered itself): no turn ran, it counts as an answer. Absent on a context that
   * counts nothing.
   */
  note?(fact: TurnFact): void;
  /**
   * Where the turn's files wait for the edge that posts them (the bus's `files`); absent: the turn
   * cannot send files, and the conversation is told each one's name and size instead.
   */
  readonly files?: FileStore;
}

/**
 * Runs a turn: asks the agent and delivers its reply through `context.send`. The returned stream
 * completing means the turn (delivery included) is done; erroring means it failed. Values it emits
 * are ignored. The broker holds the session's lane until then, so turns of one session never overlap.
 */
export interface TurnHandler {
  (turn: Turn, context: TurnContext): ObservableInput<unknown>;
  /**
   * Events this handler must see at once, without waiting behind the session's running turn —
   * `/cancel` is the example: it has to reach the turn it cancels.
   */
  bypassesLane?(event: GatewayEvent): boolean;
  /** `[queue] mode = "interrupt"`: a message arrived for this session while its turn runs; stop the turn. */
  interrupt?(sessionKey: string): void;
}

/** A turn a worker finished: `ok` false when it failed. */
export interface SettledTurn {
  readonly sessionKey: string;
  readonly event_id: string;
  readonly ok: boolean;
}

/** Triage of proactive events, in the session's lane before the handler (`[triage]`). */
export interface TurnTriage {
  readonly settings: TriageSettings;
  readonly store: TriageStore;
}
