import { describe, expect, it } from "vitest";
import { defer, of, throwError, VirtualTimeScheduler, type Observable, type Subscription } from "rxjs";
import type { QuestionEvent } from "../../../operators/delivery/agentEvent.js";
import type { OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import type { Question, QuestionOutcome } from "../../../operators/ask/question.js";
import type { PlatformCapabilities } from "../../../operators/ingress/frames/helloFrame.js";
import type { GatewayEvent, GatewaySender } from "../../../operators/ingress/gatewayEvent.js";
import { sessionKey } from "../../../operators/dispatch/sessionKey.js";
import { QuestionDesk } from "../../../src/turn/questions/questionDesk.js";
import type { TurnContext } from "../../../src/turn/turn.js";
import { SendError } from "../../../src/wire/index.js";
import { captureLogs } from "../../helpers/logCapture.js";

// The desk in virtual time: what is posted, which answers count, the one deadline, cancelling.
// Over real processes: test/e2e/permissionAsk.test.ts, telegramAsk, askTool.

const ann: GatewaySender = { id: "u1", name: "ann", display_name: "Ann", is_bot: false };
const bob: GatewaySender = { id: "u2", name: "bob", display_name: "Bob", is_bot: false };

function event(text: string, sender = ann, overrides: Partial<GatewayEvent> = {}): GatewayEvent {
  return {
    schema: "openab.gateway.event.v1",
    event_id: `e-${text}-${sender.id}`,
    timestamp: "",
    platform: "telegram",
    channel: { id: "c1", type: "group" },
    sender,
    content: { type: "text", text },
    mentions: [],
    message_id: "m-in",
    proactive: false,
    ...overrides,
  };
}

const yesNo: Question = { header: "Permission", text: "Run it?", options: [{ label: "Allow", description: "" }, { label: "Reject", description: "" }], multiSelect: false };
const pick: Question = { header: "Pick", text: "Which?", options: [{ label: "A", description: "" }, { label: "B", description: "" }, { label: "C", description: "" }], multiSelect: true };

interface Rig {
  readonly desk: QuestionDesk;
  readonly sent: OutboundMessage[];
  readonly context: TurnContext;
  readonly clock: VirtualTimeScheduler;
  readonly records: ReturnType<typeof captureLogs>["records"];
  readonly settled: (readonly QuestionOutcome[])[];
  ask(questions: readonly Question[], timeoutMs?: number, turnEvent?: GatewayEvent): Subscription;
  answer(e: GatewayEvent): void;
}

function rig(options: { buttons?: boolean; canEdit?: boolean; answerers?: "requester" | "allowed_users"; reply?: (m: OutboundMessage, i: number) => Observable<SendReceipt> } = {}): Rig {
  const sent: OutboundMessage[] = [];
  const clock = new VirtualTimeScheduler();
  const { logger, records } = captureLogs("debug");
  const reply = options.reply ?? ((_m, i) => of({ messageId: `q${i}` }));
  const send = (message: OutboundMessage) => defer(() => reply(message, sent.push(message) - 1));
  const capabilities = { buttons: options.buttons ?? false, canEdit: options.canEdit ?? true } as PlatformCapabilities;
  const context: TurnContext = { send, sendStatus: send, scheduler: clock, logger, messageLimit: () => 4096, capabilities: () => capabilities };
  let ids = 0;
  const desk = new QuestionDesk({ answerers: options.answerers ?? "requester", newAskId: () => `ask${++ids}` });
  const settled: (readonly QuestionOutcome[])[] = [];
  return {
    desk,
    sent,
    context,
    clock,
    records,
    settled,
    ask: (questions, timeoutMs = 60_000, turnEvent = event("do it")) => {
      const asked: QuestionEvent = { type: "question", kind: "ask", questions, timeoutMs, fallbackLabel: "Reject", settle: (outcomes) => settled.push(outcomes) };
      return desk.ask(sessionKey(turnEvent), turnEvent, context, asked).subscribe();
    },
    answer: (e) => {
      expect(desk.claims(e)).toBe(true);
      desk.answer(e, context).subscribe();
    },
  };
}

const texts = (r: Rig) => r.sent.map((m) => `${m.command ?? "send"}:${m.content.text}`);

describe("QuestionDesk", () => {
  it("asks a numbered question in the turn's conversation; the requester's number answers it and the message says so", () => {
    const r = rig();
    r.ask([yesNo]);
    expect(r.sent[0]).toMatchObject({ reply_to: "e-do it-u1", platform: "telegram", channel: { id: "c1" } });
    expect(r.sent[0]?.content.text).toBe("❓ Permission\nRun it?\n1. Allow\n2. Reject\nReply with a number or an option's name. Only Ann can answer.");
    expect(r.sent[0]?.choices).toBeUndefined();
    r.answer(event("2"));
    expect(r.settled).toEqual([[{ kind: "answered", chosen: [1], by: "Ann" }]]);
    expect(r.sent[1]).toMatchObject({ command: "edit_message", reply_to: "q0", content: { text: "❓ Permission\nRun it?\n1. Allow\n2. Reject\n→ Reject (Ann)" } });
    expect(r.desk.open).toBe(0);
  });

  it("does not claim a message that is not an answer, or any message when nothing is open", () => {
    const r = rig();
    expect(r.desk.claims(event("2"))).toBe(false);
    r.ask([yesNo]);
    expect(r.desk.claims(event("yes please"))).toBe(false);
    expect(r.desk.claims(event("2", ann, { channel: { id: "other", type: "group" } }))).toBe(false);
    expect(r.desk.claims(event("2", ann, { content: { type: "text", text: "2", attachments: [{ type: "image", filename: "a.png", mime_type: "image/png", data: "", size: 1 }] } }))).toBe(false);
  });

  it("ignores someone else's answer (logged), and keeps waiting for the requester", () => {
    const r = rig();
    r.ask([yesNo]);
    r.answer(event("1", bob));
    expect(r.settled).toEqual([]);
    expect(r.records.find((x) => x.msg === "question answer ignored")).toMatchObject({ reason: "not_an_answerer", sender: "u2", tap: false });
    r.answer(event("1"));
    expect(r.settled).toEqual([[{ kind: "answered", chosen: [0], by: "Ann" }]]);
  });

  it("lets anyone the gate let in answer under allowed_users, and says no 'only'", () => {
    const r = rig({ answerers: "allowed_users" });
    r.ask([yesNo]);
    expect(r.sent[0]?.content.text).toMatch(/name\.$/u);
    r.answer(event("1", bob));
    expect(r.settled).toEqual([[{ kind: "answered", chosen: [0], by: "Bob" }]]);
  });

  it("asks nobody for a turn no person started when only the requester may answer", () => {
    const r = rig();
    r.ask([yesNo, pick], 60_000, event("cron", { id: "openab-cron", name: "job", display_name: "job", is_bot: true }, { origin: "cron" }));
    expect(r.sent).toEqual([]);
    expect(r.settled).toEqual([[{ kind: "timeout" }, { kind: "timeout" }]]);
    expect(r.records.find((x) => x.msg === "question not asked")).toMatchObject({ reason: "no_requester" });
  });

  it("asks several questions one after another under one deadline; the rest time out together, and the chat is told", () => {
    const r = rig();
    r.ask([yesNo, pick], 10_000);
    expect(r.sent[0]?.content.text).toContain("❓ Permission (1/2)");
    r.clock.frame = 0;
    r.clock.maxFrames = 4_000;
    r.clock.flush();
    r.answer(event("1"));
    expect(r.sent[2]?.content.text).toContain("❓ Pick (2/2)");
    expect(r.sent[2]?.content.text).toContain("Reply with the numbers of the options you choose (1, 3).");
    r.clock.maxFrames = Number.POSITIVE_INFINITY;
    r.clock.flush();
    expect(r.settled).toEqual([[{ kind: "answered", chosen: [0], by: "Ann" }, { kind: "timeout" }]]);
    expect(texts(r)).toContain("send:⏱️ No answer in time: Reject.");
    expect(texts(r).some((t) => t.startsWith("edit_message:❓ Pick (2/2)") && t.endsWith("⏱️ No answer in time: Reject."))).toBe(true);
  });

  it("takes several numbers for a multi-select question", () => {
    const r = rig();
    r.ask([pick]);
    r.answer(event("3, 1"));
    expect(r.settled).toEqual([[{ kind: "answered", chosen: [0, 2], by: "Ann" }]]);
    expect(texts(r)[1]).toMatch(/→ A, C \(Ann\)$/u);
  });

  it("puts the options on buttons where the platform has them; a tap answers, is answered first, and the buttons go", () => {
    const r = rig({ buttons: true });
    r.ask([yesNo]);
    expect(r.sent[0]?.choices).toEqual([
      { label: "Allow", data: "q:ask1:0" },
      { label: "Reject", data: "q:ask1:1" },
    ]);
    expect(r.sent[0]?.content.text).toBe("❓ Permission\nRun it?\nTap an option. Only Ann can answer.");
    r.answer(event("", ann, { tap: { id: "cb1", data: "q:ask1:0" } }));
    expect(r.sent[1]).toMatchObject({ command: "answer_tap", reply_to: "cb1", content: { text: "" } });
    expect(r.sent[2]).toMatchObject({ command: "edit_message", reply_to: "q0", choices: [], content: { text: "❓ Permission\nRun it?\n→ Allow (Ann)" } });
    expect(r.settled).toEqual([[{ kind: "answered", chosen: [0], by: "Ann" }]]);
  });

  it("answers someone else's tap with a notice only they see, and a forged or stale tap with its own", () => {
    const r = rig({ buttons: true });
    r.ask([yesNo]);
    r.answer(event("", bob, { tap: { id: "cb1", data: "q:ask1:0" } }));
    r.answer(event("", ann, { tap: { id: "cb2", data: "q:other:0" } }));
    r.answer(event("", ann, { tap: { id: "cb3", data: "q:ask1:7" } }));
    r.answer(event("", ann, { tap: { id: "cb4", data: "evil" } }));
    expect(r.sent.slice(1).map((m) => [m.command, m.reply_to, m.content.text])).toEqual([
      ["answer_tap", "cb1", "Only Ann can answer this."],
      ["answer_tap", "cb2", "This question is no longer open."],
      ["answer_tap", "cb3", "This button does not belong to an open question."],
      ["answer_tap", "cb4", "This button does not belong to an open question."],
    ]);
    expect(r.settled).toEqual([]);
    expect(r.records.filter((x) => x.msg === "question answer ignored").map((x) => x.reason)).toEqual(["not_an_answerer", "not_open", "bad_data", "bad_data"]);
  });

  it("ticks multi-select buttons, then Done submits", () => {
    const r = rig({ buttons: true });
    r.ask([pick]);
    expect(r.sent[0]?.choices?.map((c) => c.label)).toEqual(["A", "B", "C", "Done"]);
    r.answer(event("", ann, { tap: { id: "t1", data: "q:ask1:2" } }));
    expect(r.sent[2]).toMatchObject({ command: "edit_message", choices: [{ label: "A" }, { label: "B" }, { label: "✓ C" }, { label: "Done" }] });
    r.answer(event("", ann, { tap: { id: "t2", data: "q:ask1:0" } }));
    r.answer(event("", ann, { tap: { id: "t3", data: "q:ask1:2" } }));
    r.answer(event("", ann, { tap: { id: "t4", data: "q:ask1:done" } }));
    expect(r.settled).toEqual([[{ kind: "answered", chosen: [0], by: "Ann" }]]);
  });

  it("keeps one question on screen per conversation: a second turn's question waits for the first", () => {
    const r = rig();
    r.ask([yesNo]);
    r.ask([pick]);
    expect(r.sent).toHaveLength(1);
    r.answer(event("1"));
    expect(r.sent[2]?.content.text).toContain("❓ Pick");
  });

  it("/cancel cancels what is open and what waits; the message says so", () => {
    const r = rig();
    r.ask([yesNo, pick]);
    expect(r.desk.cancel(sessionKey(event("x")))).toBe(true);
    expect(r.settled).toEqual([[{ kind: "cancelled" }, { kind: "cancelled" }]]);
    expect(texts(r)[1]).toMatch(/✖️ Cancelled\.$/u);
    expect(r.desk.cancel(sessionKey(event("x")))).toBe(false);
  });

  it("the turn ending (unsubscribe) settles what is open as cancelled", () => {
    const r = rig();
    const asking = r.ask([yesNo]);
    asking.unsubscribe();
    expect(r.settled).toEqual([[{ kind: "cancelled" }]]);
    expect(r.desk.open).toBe(0);
  });

  it("an answer before the post's receipt still closes the message once its id is known", () => {
    let release!: (receipt: SendReceipt) => void;
    const r = rig({
      reply: (m, i) =>
        i === 0 ? defer(() => new Promise<SendReceipt>((resolve) => (release = resolve))) : of({ messageId: `q${i}` }),
    });
    r.ask([yesNo]);
    r.answer(event("1"));
    expect(r.settled).toHaveLength(1);
    expect(r.sent).toHaveLength(1);
    release({ messageId: "late" });
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        expect(r.sent[1]).toMatchObject({ command: "edit_message", reply_to: "late" });
        resolve();
      }, 0),
    );
  });

  it("without edits, says an answer in a message of its own", () => {
    const r = rig({ canEdit: false });
    r.ask([yesNo]);
    r.answer(event("1"));
    expect(r.sent[1]).toMatchObject({ content: { text: "→ Allow (Ann)" } });
    expect(r.sent[1]?.command).toBeUndefined();
  });

  it("a question whose post fails is cancelled, logged with the code", () => {
    const r = rig({ reply: () => throwError(() => new SendError("rejected", "no")) });
    r.ask([yesNo]);
    expect(r.settled).toEqual([[{ kind: "cancelled" }]]);
    expect(r.records.find((x) => x.msg === "question not asked")).toMatchObject({ reason: "send_failed", code: "rejected" });
  });
});

describe("personName", () => {
  it("shows a platform's name for a person as one clean bounded line", async () => {
    const { personName } = await import("../../../src/turn/questions/askRun.js");
    expect(personName({ id: "u1", name: "ann", display_name: "Ann", is_bot: false })).toBe("Ann");
    expect(personName({ id: "u1", name: "ann", display_name: "  ", is_bot: false })).toBe("ann");
    expect(personName({ id: "u1", name: "", display_name: "", is_bot: false })).toBe("u1");
    const hostile = personName({ id: "u1", name: "x", display_name: `\u001b[31mEve\u202e${"!".repeat(500)}\n`, is_bot: false });
    expect(hostile).not.toMatch(/[\u0000-\u001f\u202e]/u);
    expect(Array.from(hostile).length).toBeLessThanOrEqual(64);
  });
});

describe("a question posted under a recovered re-run's marker", () => {
  it("keeps the marker on every edit of its message (the toggle and the close)", () => {
    const marker = "♻️ Recovered reply";
    const r = rig({ buttons: true, reply: (m, i) => of(i === 0 ? { messageId: "q0", marker } : { messageId: `q${i}` }) });
    r.ask([pick]);
    r.answer(event("", ann, { tap: { id: "t1", data: "q:ask1:1" } }));
    r.answer(event("", ann, { tap: { id: "t2", data: "q:ask1:done" } }));
    const edits = r.sent.filter((m) => m.command === "edit_message");
    expect(edits).toHaveLength(2);
    for (const edit of edits) expect(edit.content.text.startsWith(`${marker}\n\n❓ Pick`)).toBe(true);
    expect(edits[1]?.content.text.endsWith("→ B (Ann)")).toBe(true);
  });
});

describe("someone else's reply in words", () => {
  it("is answered with a notice only they see where the platform can show one (Slack), and ignored", () => {
    const r = rig();
    const capabilities = { canEdit: true, notices: true } as PlatformCapabilities;
    const context: TurnContext = { ...r.context, capabilities: () => capabilities };
    r.ask([yesNo]);
    const reply = event("1", bob, { channel: { id: "c1", type: "group" } });
    expect(r.desk.claims(reply)).toBe(true);
    r.desk.answer(reply, context).subscribe();
    expect(r.sent[1]).toEqual({ reply_to: "u2", platform: "telegram", channel: { id: "c1" }, content: { type: "text", text: "Only Ann can answer this." }, command: "notice", plainText: true });
    expect(r.settled).toEqual([]);
  });

  it("is only logged where no such message exists", () => {
    const r = rig();
    r.ask([yesNo]);
    r.answer(event("1", bob));
    expect(r.sent).toHaveLength(1);
  });
});
