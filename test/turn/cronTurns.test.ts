import { describe, expect, it } from "vitest";
import { defer, EMPTY, lastValueFrom, of, throwError, VirtualTimeScheduler, type Observable } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { cronPostText, withCronFirings } from "../../src/turn/cronTurns.js";
import { replyChannel, replyTo } from "../../src/turn/delivery/replyMessage.js";
import type { Turn, TurnContext, TurnHandler } from "../../src/turn/turn.js";
import { SendError } from "../../src/wire/index.js";
import { captureLogs } from "../helpers/logCapture.js";

// A cron job's firing around a turn handler (reference §5.5): what is posted before the turn, where
// the turn runs, and when a firing is skipped. The scheduler that queues firings:
// test/cron/cronScheduler.test.ts; real platforms and processes: test/e2e/cron*.test.ts.

const MINUTE = Date.parse("2026-12-06T09:00:00.000Z");

function firing(overrides: Partial<GatewayEvent> = {}, minute = MINUTE, catchUp = false): GatewayEvent {
  return {
    schema: "openab.gateway.event.v1",
    event_id: `cron:job1:${new Date(minute).toISOString()}`,
    timestamp: new Date(minute).toISOString(),
    platform: "discord",
    channel: { id: "c1", type: "cron", thread_id: null },
    sender: { id: "openab-cron", name: "digest", display_name: "digest", is_bot: true },
    content: { type: "text", text: "Summarise the night" },
    mentions: [],
    message_id: "",
    proactive: false,
    origin: "cron",
    cron: { job: "job1", minute: new Date(minute).toISOString(), ...(catchUp ? { catch_up: true as const } : {}) },
    ...overrides,
  };
}

interface Rig {
  readonly sent: OutboundMessage[];
  readonly turns: Turn[];
  readonly context: TurnContext;
  readonly records: ReturnType<typeof captureLogs>["records"];
  readonly clock: VirtualTimeScheduler;
  run(event: GatewayEvent, handler?: TurnHandler): Promise<void>;
}

/** A handler that notes its turns and answers once through the context; sends answered by `answer`. */
function rig(answer: (message: OutboundMessage, index: number) => Observable<SendReceipt> = (_m, i) => of({ messageId: `m${i}` })): Rig {
  const sent: OutboundMessage[] = [];
  const turns: Turn[] = [];
  const clock = new VirtualTimeScheduler();
  clock.frame = MINUTE;
  const { logger, records } = captureLogs("debug");
  const send = (message: OutboundMessage) => defer(() => answer(message, sent.push(message) - 1));
  const context: TurnContext = { send, sendStatus: send, scheduler: clock, logger, messageLimit: () => 2000 };
  const inner: TurnHandler = (turn, ctx) => {
    turns.push(turn);
    return ctx.send({ reply_to: replyTo(turn.event), platform: turn.event.platform, channel: replyChannel(turn.event), content: { type: "text", text: "answer" } });
  };
  const wrapped = withCronFirings(inner);
  return {
    sent,
    turns,
    context,
    records,
    clock,
    run: async (event, handler = wrapped) => {
      await lastValueFrom(defer(() => handler({ sessionKey: "discord:c1:", event }, context)), { defaultValue: undefined });
    },
  };
}

describe("withCronFirings", () => {
  it("posts 🕐 [sender]: message, opens a thread from the post and runs the turn there, anchored on the post", async () => {
    const r = rig((message, i) => of({ messageId: message.command === "create_topic" ? "t9" : `m${i}` }));
    await r.run(firing());
    expect(r.sent[0]).toEqual({ reply_to: "", platform: "discord", channel: { id: "c1" }, content: { type: "text", text: "🕐 [digest]: Summarise the night" } });
    expect(r.sent[1]).toEqual({ reply_to: "", platform: "discord", channel: { id: "c1" }, content: { type: "text", text: "Summarise the night" }, quote_message_id: "m0", command: "create_topic" });
    expect(r.turns).toHaveLength(1);
    const turn = r.turns[0] as Turn;
    expect(turn.sessionKey).toBe("discord:c1:t9");
    expect(turn.event.channel.thread_id).toBe("t9");
    expect(turn.event.message_id).toBe("m0");
    expect(turn.event.cron).toBeUndefined();
    // The turn's replies answer no event.
    expect(r.sent[2]?.reply_to).toBe("");
    expect(r.records.some((record) => record.msg === "cronjob running")).toBe(true);
  });

  it("joins the job's thread_id: posts there and runs the turn in that conversation, no thread opened", async () => {
    const r = rig();
    await r.run(firing({ channel: { id: "c1", type: "cron", thread_id: "t1" } }));
    expect(r.sent.map((m) => [m.command, m.channel.thread_id])).toEqual([
      [undefined, "t1"],
      [undefined, "t1"],
    ]);
    expect(r.turns[0]?.sessionKey).toBe("discord:c1:");
    expect(r.turns[0]?.event.message_id).toBe("m0");
  });

  it("a platform without threads for a post (create_topic answers \"\") keeps the conversation in the channel", async () => {
    const r = rig((message, i) => of({ messageId: message.command === "create_topic" ? "" : `m${i}` }));
    await r.run(firing({ platform: "telegram" }));
    expect(r.turns[0]?.sessionKey).toBe("telegram:c1:");
    expect(r.turns[0]?.event.channel.thread_id).toBeNull();
  });

  it("a post confirmed without an id (a legacy gateway) anchors nothing, and its topic is opened plainly", async () => {
    const r = rig((message) => of({ messageId: message.command === "create_topic" ? "t9" : "gw_sent" }));
    await r.run(firing({ platform: "line" }));
    expect(r.sent[1]?.quote_message_id).toBeUndefined();
    expect(r.turns[0]?.event.message_id).toBe("");
    expect(r.turns[0]?.sessionKey).toBe("line:c1:t9");
  });

  it("a proactive job posts nothing before the agent speaks", async () => {
    const r = rig();
    const silent: TurnHandler = withCronFirings(() => EMPTY);
    await r.run(firing({ proactive: true }), silent);
    expect(r.sent).toEqual([]);
  });

  it("a proactive job's turn runs in the job's conversation, its event without the firing mark", async () => {
    const r = rig();
    await r.run(firing({ proactive: true }));
    expect(r.turns[0]?.event.cron).toBeUndefined();
    expect(r.turns[0]?.event.proactive).toBe(true);
    expect(r.sent.map((m) => m.content.text)).toEqual(["answer"]);
  });

  it("a refused post shows nothing and runs no turn (failed to send cron message)", async () => {
    const r = rig(() => throwError(() => new SendError("rejected", "unknown channel")));
    await r.run(firing());
    expect(r.turns).toEqual([]);
    expect(r.records.find((record) => record.msg === "failed to send cron message")).toMatchObject({ reason: "post_failed", job: "job1" });
  });

  it("a thread that cannot be opened is told in the channel, and no turn runs", async () => {
    const r = rig((message, i) => (message.command === "create_topic" ? throwError(() => new SendError("rejected", "50024 cannot start thread")) : of({ messageId: `m${i}` })));
    await r.run(firing());
    expect(r.turns).toEqual([]);
    expect(r.sent.map((m) => m.content.text)).toEqual(["🕐 [digest]: Summarise the night", "Summarise the night", "⚠️ cronjob: failed to create thread"]);
    expect(r.records.find((record) => record.msg === "failed to create cron thread")).toMatchObject({ reason: "thread_failed" });
  });

  it("skips a firing whose minute began before the job's previous firing ended (overlap), but not a caught-up one", async () => {
    const r = rig();
    const handler = withCronFirings((turn) => {
      r.turns.push(turn);
      // The turn takes 90 s of the job's clock.
      r.clock.frame += 90_000;
      return EMPTY as Observable<never>;
    });
    await r.run(firing({ proactive: true }), handler);
    await r.run(firing({ proactive: true }, MINUTE + 60_000), handler);
    expect(r.turns).toHaveLength(1);
    expect(r.records.find((record) => record.msg === "skipping cronjob, previous execution still running")).toMatchObject({ reason: "overlap", job: "job1" });
    await r.run(firing({ proactive: true }, MINUTE + 120_000), handler);
    expect(r.turns).toHaveLength(2);
    await r.run(firing({ proactive: true }, MINUTE + 60_000, true), handler);
    expect(r.turns).toHaveLength(3);
  });

  it("keeps the handler's /cancel bypass for ordinary events, never for a firing", () => {
    const inner: TurnHandler = () => EMPTY;
    inner.bypassesLane = () => true;
    const wrapped = withCronFirings(inner);
    expect(wrapped.bypassesLane?.(firing())).toBe(false);
    const { cron: _c, ...plain } = firing();
    expect(wrapped.bypassesLane?.(plain)).toBe(true);
  });

  it("writes the post as upstream does", () => {
    expect(cronPostText(firing())).toBe("🕐 [digest]: Summarise the night");
  });
});
