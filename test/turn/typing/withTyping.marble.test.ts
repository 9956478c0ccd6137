import { describe, expect, it } from "vitest";
import { concat, defer, ignoreElements, map, throwError, timer, type Observable, type SchedulerLike } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import { parseGatewayFrame } from "../../../operators/ingress/frames/gatewayFrames.js";
import { resolveCapabilities, type PlatformCapabilities } from "../../../operators/ingress/frames/helloFrame.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { DurableMessage } from "../../../src/bus/bus.js";
import { MemoryBus } from "../../../src/bus/memoryBus.js";
import { Pipeline } from "../../../src/pipeline/pipeline.js";
import { replyMessage } from "../../../src/turn/delivery/replyMessage.js";
import type { SettledTurn, TurnHandler } from "../../../src/turn/turn.js";
import { withTyping } from "../../../src/turn/typing/withTyping.js";
import { runTurn } from "../../../src/worker/turnRun.js";
import { SendError } from "../../../src/wire/sendError.js";
import { gatewayEvent } from "../../helpers/events.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { testScheduler } from "../../helpers/marbles.js";
import { recordingInstruments } from "../../helpers/recordingInstruments.js";

// A turn run as the worker runs it (`runTurn`, whose context is the handler's), in virtual time:
// "typing…" at the start and every 4 s until the turn ends, on a platform that shows it, beside
// the turn's bubbles and never counted as one of them.

const EVENT = gatewayEvent({ event_id: "e1", channel: { id: "-1001", type: "supergroup", thread_id: "7" } });

/** A native adapter's fixed capabilities, as far as this test needs them: the gateway's fail-closed ones with typing on. */
const NATIVE: PlatformCapabilities = { ...gatewayCapabilities({}), typingIndicator: true };

/** What a gateway's hello gives the platform: every field it can set turned on. */
function gatewayCapabilities(fields: Record<string, unknown>): PlatformCapabilities {
  const frame = { schema: "openab.gateway.hello.v1", protocol_version: 1, capabilities: { telegram: fields } };
  const parsed = parseGatewayFrame(JSON.stringify(frame), 1 << 20);
  if (parsed.kind !== "hello") throw new Error("not a hello");
  return resolveCapabilities(parsed.hello, "telegram", { streaming: true, streamingPlaceholder: true });
}

const EVERYTHING_ON = gatewayCapabilities({
  send_ack: true,
  edit_ack: true,
  delete_ack: true,
  supports_target_message_id: true,
  supports_reactions: true,
  can_edit: true,
  can_delete: true,
  streaming_mode: "edit",
  status_backend: "typing",
  typing_indicator: true,
});

/** Bubbles asked at 1 s, 4.505 s and 9.01 s, each acked 5 ms later: the turn ends at 9.015 s. */
const threeBubbles: TurnHandler = ({ event }, context) =>
  concat(
    timer(1_000, context.scheduler),
    context.send(replyMessage(event, "one", undefined)),
    timer(3_500, context.scheduler),
    context.send(replyMessage(event, "two", undefined)),
    timer(4_500, context.scheduler),
    context.send(replyMessage(event, "three", undefined)),
  ).pipe(ignoreElements(), withTyping(event, context));

interface Run {
  readonly capabilities?: PlatformCapabilities;
  readonly handler?: TurnHandler;
  /** How the platform answers a typing command (default: acked in 5 ms). */
  readonly typing?: (at: number, scheduler: SchedulerLike) => Observable<SendReceipt>;
  /** Unsubscribes the turn (the worker stopping) at this time. */
  readonly cancelAt?: number;
  /** The turn's event is proactive (a cron job's, a webhook's). */
  readonly proactive?: boolean;
}

/** Runs one turn on `EVENT` to the end of virtual time: what was sent when, how it settled, what it counted and logged. */
function run({ capabilities, handler = threeBubbles, typing, cancelAt, proactive = false }: Run) {
  const scheduler = testScheduler();
  const sent: Array<{ readonly at: number; readonly message: OutboundMessage }> = [];
  const settled: SettledTurn[] = [];
  const { instruments, calls } = recordingInstruments();
  const { logger, records } = captureLogs("debug");
  // Not `run`, which flushes for ever: virtual time stops at 60 s, so typing that never stopped
  // shows as ticks up to then instead of hanging the test.
  scheduler.maxFrames = 60_000;
  {
    const bus = new MemoryBus({ scheduler });
    const messages: DurableMessage<GatewayEvent>[] = [];
    bus.consume<GatewayEvent>("t.turn.0", { durable: "w" }).subscribe((message) => messages.push(message));
    bus.persist("t.turn.0", proactive ? { ...EVENT, proactive } : EVENT).subscribe();
    const acked = timer(5, scheduler).pipe(map((): SendReceipt => ({ messageId: "m" })));
    const send = (message: OutboundMessage) =>
      defer(() => {
        const at = scheduler.now();
        sent.push({ at, message });
        return message.command === "typing" && typing !== undefined ? typing(at, scheduler) : acked;
      });
    const turn = runTurn(
      messages,
      { dropped: [], marked: false },
      {
        bus,
        logger,
        pipeline: new Pipeline(),
        handler,
        send,
        messageLimit: () => 4096,
        retryInMs: 1_000,
        onSettled: (settledTurn) => settled.push(settledTurn),
        instruments,
        ...(capabilities === undefined ? {} : { capabilities: () => capabilities }),
      },
      () => undefined,
    );
    if (cancelAt !== undefined) scheduler.schedule(() => turn.unsubscribe(), cancelAt);
  }
  scheduler.flush();
  const typed = sent.filter(({ message }) => message.command === "typing");
  return {
    typingAt: typed.map(({ at }) => at),
    typed: typed.map(({ message }) => message),
    bubblesAt: sent.filter(({ message }) => message.command === undefined).map(({ at }) => at),
    settled,
    calls,
    records,
  };
}

describe("typing while a turn runs (withTyping over runTurn)", () => {
  it("a platform that shows typing: at the start and every 4 s until the turn ends, between the bubbles too, and nothing after", () => {
    const { typingAt, typed, bubblesAt, settled } = run({ capabilities: NATIVE });
    expect(bubblesAt).toEqual([1_000, 4_505, 9_010]);
    // The turn ended at 9,015 ms; virtual time ran on with nothing left to send.
    expect(typingAt).toEqual([0, 4_000, 8_000]);
    expect(settled).toEqual([{ sessionKey: expect.any(String), event_id: "e1", ok: true }]);
    // Into the turn's conversation and thread, no text, naming the turn's event.
    expect(typed[0]).toEqual({ reply_to: "e1", platform: "telegram", channel: { id: "-1001", thread_id: "7" }, content: { type: "text", text: "" }, command: "typing" });
  });

  it("is never counted as delivered: the turn's first message is its first bubble, not the typing sent before it", () => {
    const { calls } = run({ capabilities: NATIVE });
    expect(calls.filter(([name]) => name === "firstMessage")).toEqual([["firstMessage", 1.005]]);
    expect(calls.filter(([name]) => name === "bubbleGap")).toEqual([
      ["bubbleGap", 3.505],
      ["bubbleGap", 4.505],
    ]);
  });

  it("never on a gateway platform, whatever its hello says, nor in legacy mode (nothing negotiated)", () => {
    const gateway = run({ capabilities: EVERYTHING_ON });
    expect(EVERYTHING_ON.typingIndicator).toBe(false);
    expect(gateway.typingAt).toEqual([]);
    expect(gateway.bubblesAt).toEqual([1_000, 4_505, 9_010]);
    expect(run({}).typingAt).toEqual([]);
    expect(run({ capabilities: { ...NATIVE, typingIndicator: false } }).typingAt).toEqual([]);
  });

  it("never for a proactive turn, which may end in silence and which nobody asked for", () => {
    const { typingAt, bubblesAt } = run({ capabilities: NATIVE, proactive: true });
    expect(typingAt).toEqual([]);
    expect(bubblesAt).toEqual([1_000, 4_505, 9_010]);
  });

  it("a typing send that fails is logged at debug and the turn goes on; the next renewal is tried", () => {
    const refused = (at: number, scheduler: SchedulerLike) =>
      timer(5, scheduler).pipe(
        map((): SendReceipt => {
          if (at === 0) throw new SendError("bad_request", "chat action refused");
          return { messageId: "m" };
        }),
      );
    const { typingAt, bubblesAt, settled, records } = run({ capabilities: NATIVE, typing: refused });
    expect(typingAt).toEqual([0, 4_000, 8_000]);
    expect(bubblesAt).toEqual([1_000, 4_505, 9_010]);
    expect(settled.map(({ ok }) => ok)).toEqual([true]);
    const failed = records.filter((record) => record.msg === "typing indicator not sent");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ level: 20, reason: "typing_failed", err: { type: "SendError", message: "chat action refused" } });
  });

  it("the turn never waits for a typing send: one still on its way skips the renewal due meanwhile, and one on its way at the end is let finish", () => {
    // Each typing command takes 5 s to be answered.
    const slow = (_: number, scheduler: SchedulerLike) => timer(5_000, scheduler).pipe(map((): SendReceipt => ({ messageId: "m" })));
    const { typingAt, bubblesAt, settled } = run({ capabilities: NATIVE, typing: slow });
    // 4 s falls due while the first is still on its way (until 5 s): skipped; 8 s goes.
    expect(typingAt).toEqual([0, 8_000]);
    expect(bubblesAt).toEqual([1_000, 4_505, 9_010]);
    expect(settled.map(({ ok }) => ok)).toEqual([true]);
  });

  it("a failed turn stops it, as does a turn the worker cancels", () => {
    const failing: TurnHandler = ({ event }, context) =>
      concat(timer(5_000, context.scheduler), throwError(() => new Error("agent gone"))).pipe(ignoreElements(), withTyping(event, context));
    const failed = run({ capabilities: NATIVE, handler: failing });
    expect(failed.typingAt).toEqual([0, 4_000]);
    expect(failed.settled.map(({ ok }) => ok)).toEqual([false]);

    const cancelled = run({ capabilities: NATIVE, cancelAt: 6_000 });
    expect(cancelled.typingAt).toEqual([0, 4_000]);
    expect(cancelled.bubblesAt).toEqual([1_000, 4_505]);
  });
});
