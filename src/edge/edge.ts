import { filter, firstValueFrom, map, merge, Subject, takeUntil, type Observable, type SchedulerLike, type Subscription } from "rxjs";
import type { Logger } from "../log/logger.js";
import { noInstruments, type Instruments } from "../metrics/instruments.js";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { debounceInbound } from "../../operators/ingress/debounceInbound.js";
import { skipEvents } from "../../operators/ingress/skipEvent.js";
import { trustGate } from "../../operators/ingress/trustGate.js";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import type { Bus, BusMessage } from "../bus/bus.js";
import { StoredFileMissingError, type FileStore } from "../bus/files/fileStore.js";
import type { Config } from "../config/index.js";
import type { Send } from "../pipeline/send.js";
import { SEND_ID_HEADER, SendError, type SendReply, type Subjects } from "../wire/index.js";
import type { PlatformPort } from "../platforms/platformPort.js";
import { AnsweredSends } from "./answeredSends.js";
import { EdgeSettlement } from "./edgeSettlement.js";
import { OrderedAppends } from "./orderedAppends.js";
import { TrustEchoes } from "./trustEchoes.js";

export interface EdgeOptions {
  /** Where events come from and replies go: the gateway, or a platform adapter. */
  readonly port: PlatformPort;
  readonly inbound: Config["inbound"];
  /** Per-send acks: bubble modes and streaming wait for each ack (ordering on the wire). */
  readonly wantAck: boolean;
  /**
   * Queues an event that passed the ingress checks (the broker's `submit`, on callbacks) with its
   * `sessionKey`, computed here once per event: calls `done` once it is appended or refused — the
   * broker logs a refusal.
   */
  readonly queue: (event: GatewayEvent, sessionKey: string, done: () => void) => void;
  readonly bus: Bus;
  readonly subjects: Subjects;
  readonly logger: Logger;
  readonly scheduler: SchedulerLike;
  /** Counts skipped, untrusted and debounced events (default: nothing). */
  readonly instruments?: Instruments;
  /**
   * The broker's send, for what the edge answers itself (the trust echo): through `beforeSend` and
   * `[rate_limits]` like every message, never straight to the connector.
   */
  readonly notices: Send;
}

export interface Edge {
  /**
   * Stops taking gateway events: messages held by inbound debounce are flushed and queued first,
   * so nothing already received is lost. Resolves once the intake has drained.
   */
  stopIntake(): Promise<void>;
  /** Answers send requests from workers by posting through the port. Unsubscribe after turns drained. */
  readonly responder: Subscription;
}

/**
 * The edge half of one platform port: its events through the skip rules, the trust gate and
 * inbound debounce into the turn stream, and workers' sends for its platforms out through it.
 */
export function runEdge(options: EdgeOptions): Edge {
  const { port, logger, instruments = noInstruments } = options;
  const rules = port.ingress;
  const settlement = EdgeSettlement.of(port);
  const stop = new Subject<void>();
  let drained!: () => void;
  const intakeDrained = new Promise<void>((resolve) => (drained = resolve));
  // In order per conversation, pipelined across conversations: a session's next append starts once
  // its previous one is acked, so an append retried across a bus outage or reconnect can never land
  // after a later event of its session (that is what breaks per-session order); appends of
  // different sessions are outstanding together, one round trip per event overall would cap an edge.
  const appends = new OrderedAppends<GatewayEvent>(sessionKey, (event, key, done) =>
    options.queue(event, key, () => {
      settlement?.settle(event);
      done();
    }),
  );
  const echoes = new TrustEchoes(options.notices, logger);
  // One long-lived chain for the connection's whole life: an event costs a few `next` calls here.
  port.events
    .pipe(
      takeUntil(stop),
      skipEvents(
        rules,
        (event, reason) => {
          logger.info({ reason, event_id: event.event_id, sessionKey: sessionKey(event) }, "event skipped");
          instruments.events("skipped");
          settlement?.settle(event);
        },
        { keepUnmentioned: options.inbound.history_limit > 0 },
      ),
      trustGate(rules, { scheduler: options.scheduler, ...(rules.denyEchoWindowMs === undefined ? {} : { echoWindowMs: rules.denyEchoWindowMs }) }),
      filter((decision) => {
        if (decision.kind === "allow") return true;
        logger.info({ reason: decision.decision, event_id: decision.event.event_id, sender: decision.event.sender.id }, "event denied");
        instruments.events("untrusted");
        settlement?.settle(decision.event);
        // A message that did not address the bot gets no answer, not even a refusal.
        if (decision.echo !== undefined && decision.event.history !== true) echoes.post(decision.echo, decision.event);
        return false;
      }),
      map((decision) => decision.event),
      debounceInbound({
        debounceMs: options.inbound.debounce_ms,
        byPlatform: options.inbound.debounce_by_platform,
        scheduler: options.scheduler,
        onMerged: (folded, events, merged) => {
          instruments.events("debounced", folded);
          settlement?.merged(events, merged);
        },
      }),
    )
    .subscribe({
      next: (event) => appends.push(event),
      complete: () => appends.whenIdle(drained),
      error: () => appends.whenIdle(drained),
    });

  // Answers by send id: a worker whose answer was lost asks again, and must not get a second post.
  const answers = new AnsweredSends(answeredSendsKept);
  // Each request is answered when its post settles, with no stream per send (mergeMap over
  // from(promise) built three): an answer that settles after the responder was unsubscribed is
  // dropped, as the cancelled inner stream dropped it.
  const requests = sendRequests(port, options.bus, options.subjects);
  const responder: Subscription = requests.subscribe((request) => {
    const { data } = request;
    void answers
      .answer(request.headers[SEND_ID_HEADER], () => sendReply(port, data, options.wantAck, options.bus.files))
      .then((answer) => {
        if (!responder.closed) request.respond(answer);
      });
  });
  // Echoes go out through the responder: they stop with it.
  responder.add(() => echoes.close());
  return {
    stopIntake: () => {
      stop.next(); // completes the intake: debounce flushes, the last submits finish, then it is drained
      return intakeDrained;
    },
    responder,
  };
}

/** How many send answers an edge remembers for retries (oldest forgotten first). */
const answeredSendsKept = 10_000;

/**
 * The send requests a port answers: the gateway's edges share every platform's send subject; a
 * platform adapter's edges share its platforms' own (`Subjects.send` names them apart).
 */
function sendRequests(port: PlatformPort, bus: Bus, names: Subjects): Observable<BusMessage<OutboundMessage>> {
  if (port.platforms === undefined) return bus.subscribe<OutboundMessage>(names.sends, { queue: names.sendQueue });
  return merge(...port.platforms.map((platform) => bus.subscribe<OutboundMessage>(names.send(platform), { queue: names.sendQueueOf(platform) })));
}

/**
 * Posts one message; the port's answer or the failure as a reply (never rejects). A file goes with
 * its bytes, read from the bus's file store, only to a platform whose port says it takes files;
 * elsewhere the port gets none and sends the file's notice line.
 */
function sendReply(port: PlatformPort, message: OutboundMessage, wantAck: boolean, files: FileStore): Promise<SendReply> {
  const { attachment } = message;
  const sent =
    attachment === undefined || message.command !== undefined || port.capabilities(message.platform)?.outboundFiles !== true
      ? port.send(message, { wantAck })
      : readFile(files, attachment.ref, attachment.size).then((file) => port.send(message, { wantAck, file }));
  return sent.then(
    (receipt): SendReply => ({ ok: true, messageId: receipt.messageId }),
    (err: unknown) => failedReply(err),
  );
}

/**
 * A send's file from the store; rejects with `SendError` `file_missing` (not there: removed,
 * expired, never put) or `file_store_failed` (the store failed, or holds other bytes than the send
 * names). Neither is asked again: the answer says no `retryAfterMs`.
 */
function readFile(files: FileStore, ref: string, size: number): Promise<Uint8Array> {
  return firstValueFrom(files.get(ref)).then(
    (file) => (file.byteLength === size ? file : Promise.reject(new SendError("file_store_failed", `the stored file is ${file.byteLength} bytes, the send names ${size}`))),
    (err: unknown) =>
      Promise.reject(
        err instanceof StoredFileMissingError
          ? new SendError("file_missing", "the file to send is no longer in the bus's file store", { cause: err })
          : new SendError("file_store_failed", "reading the file to send from the bus's file store failed", { cause: err }),
      ),
  );
}

function failedReply(err: unknown): SendReply {
  if (err instanceof SendError) return { ok: false, code: err.code, error: err.message, ...(err.retryAfterMs === undefined ? {} : { retryAfterMs: err.retryAfterMs }) };
  return { ok: false, code: "send_failed", error: err instanceof Error ? err.message : String(err) };
}
