import { describe, expect, it } from "vitest";
import { sessionKey } from "../../../operators/dispatch/sessionKey.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { someConversations, until, useFakeSlack } from "../../fakes/slack/slackFixture.js";
import { logged, useSlackPorts } from "./slackTestConfig.js";

// Taps on the broker's buttons coming in through the Slack port's socket (issue 41): the
// interactive envelope acked at once, the tap as an event in the conversation's session, answered
// with an ephemeral notice; what is no tap of ours dropped with its reason.

const slack = useFakeSlack({ pingIntervalMs: 0 });
const portOf = useSlackPorts(() => slack.fake);

const choices = [
  { label: "Allow once", data: "q1:allow_once" },
  { label: "Reject", data: "q1:reject" },
];

/** A port that knows the bot and holds the socket. */
async function receiving(...args: Parameters<typeof portOf>) {
  const made = portOf(...args);
  await made.port.prepare();
  made.port.start();
  await until(() => made.port.isConnected);
  return made;
}

describe("SlackPort: taps on buttons", () => {
  it("a tap in the conversation's thread is one event in its session, the envelope acked at once; answer_tap's notice reaches the tapper", async () => {
    const { fake } = slack;
    const { general, alice, bob } = someConversations(fake);
    const { port, events } = await receiving();
    const said = fake.from(alice).message(general.id, "@turnstream deploy");
    await until(() => events.length === 1);
    const asked = await port.send({ reply_to: events[0]!.event_id, platform: "slack", channel: { id: general.id, thread_id: said.ts }, content: { type: "text", text: "Deploy to prod?" }, choices });
    const payload = fake.from(bob).press(general.id, asked.messageId, "q1:reject");
    await until(() => events.length === 2);
    const tap = events[1]!;
    expect(tap).toEqual({
      schema: "openab.gateway.event.v1",
      event_id: `tap:${payload.trigger_id as string}`,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      platform: "slack",
      channel: { id: general.id, type: "channel", thread_id: said.ts },
      sender: { id: bob.id, name: "Bob Builder", display_name: "Bob Builder", is_bot: false },
      content: { type: "text", text: "" },
      mentions: [],
      message_id: asked.messageId,
      proactive: false,
      tap: { id: `${general.id}:${bob.id}:${said.ts}`, data: "q1:reject" },
    });
    expect(sessionKey(tap)).toBe(sessionKey(events[0]!));
    const envelope = fake.socket.sent.find((sent) => sent.type === "interactive")!;
    await until(() => envelope.ackedAt !== undefined);
    expect(envelope.ackLatencyMs).toBeLessThan(1000);
    await port.send({ reply_to: tap.tap!.id, platform: "slack", channel: { id: general.id, thread_id: said.ts }, content: { type: "text", text: "Only Ali can answer this." }, command: "answer_tap" });
    expect(fake.ephemerals).toMatchObject([{ channel: general.id, user: bob.id, text: "Only Ali can answer this.", thread_ts: said.ts }]);
    await port.send({ reply_to: asked.messageId, platform: "slack", channel: { id: general.id, thread_id: said.ts }, content: { type: "text", text: "Deploy to prod? Rejected by Ali" }, command: "edit_message", choices: [] });
    expect(() => fake.from(alice).press(general.id, asked.messageId, "q1:allow_once")).toThrow(/has no button/);
  });

  it("a button on a top-level message (a DM's, say) keys by the message's own ts, as a message there would", async () => {
    const { fake } = slack;
    const { dm, alice } = someConversations(fake);
    const { port, events } = await receiving();
    const asked = await port.send({ reply_to: "", platform: "slack", channel: { id: dm.id }, content: { type: "text", text: "Still there?" }, choices });
    fake.from(alice).press(dm.id, asked.messageId, "q1:allow_once");
    await until(() => events.length === 1);
    expect(events[0]).toMatchObject({ channel: { id: dm.id, type: "dm", thread_id: asked.messageId }, message_id: asked.messageId, sender: { id: alice.id, name: "Ali" }, tap: { id: `${dm.id}:${alice.id}:`, data: "q1:allow_once" } });
    const reply = fake.from(alice).message(dm.id, "yes", { thread_ts: asked.messageId });
    await until(() => events.length === 2);
    expect(sessionKey(events[1]!)).toBe(sessionKey(events[0]!));
    expect(events[1]!.message_id).toBe(reply.ts);
    await port.send({ reply_to: events[0]!.tap!.id, platform: "slack", channel: { id: dm.id, thread_id: asked.messageId }, content: { type: "text", text: "Noted." }, command: "answer_tap" });
    expect(fake.ephemerals).toMatchObject([{ channel: dm.id, user: alice.id, text: "Noted.", thread_ts: undefined }]);
  });

  it("the channel and person allow-lists apply: a tap outside them is skipped, silently", async () => {
    const { fake, web } = slack;
    const { general, secret, alice, bob } = someConversations(fake);
    const { events, records } = await receiving({ allow_all_users: false, allowed_users: [alice.id], allow_all_channels: false, allowed_channels: [general.id] });
    const blocks = [{ type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Go" }, action_id: "q1:go", value: "q1:go" }] }];
    const inGeneral = await web.chat.postMessage({ channel: general.id, text: "Go?", blocks });
    const inSecret = await web.chat.postMessage({ channel: secret.id, text: "Go?", blocks });
    fake.from(bob).press(general.id, inGeneral.ts!, "q1:go");
    fake.from(alice).press(secret.id, inSecret.ts!, "q1:go");
    fake.from(alice).press(general.id, inGeneral.ts!, "q1:go");
    await until(() => events.length === 1);
    expect(events.map((event) => [event.sender.id, event.channel.id])).toEqual([[alice.id, general.id]]);
    await until(() => logged(records, "slack tap skipped").length === 2);
    expect(logged(records, "slack tap skipped")).toMatchObject([
      { reason: "user_not_allowed", user_id: bob.id, channel: general.id },
      { reason: "channel_not_allowed", channel: secret.id },
    ]);
    expect(fake.ephemerals).toEqual([]);
  });

  it("malformed block_actions are acked and dropped with their reason; other interactions skipped; the next tap arrives", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const { port, events, records } = await receiving();
    const asked = await port.send({ reply_to: "", platform: "slack", channel: { id: general.id }, content: { type: "text", text: "Go?" }, choices });
    const real = fake.from(alice).press(general.id, asked.messageId, "q1:allow_once");
    await until(() => events.length === 1);
    const withAction = (action: Record<string, unknown>) => ({ ...real, actions: [{ ...(real.actions as Record<string, unknown>[])[0], ...action }] });
    const bad: [Record<string, unknown>, string][] = [
      [withAction({ action_id: "x".repeat(65) }), "bad_action_id"],
      [withAction({ action_id: 42 }), "bad_action_id"],
      [withAction({ action_id: "q1 allow" }), "bad_action_id"],
      [{ ...real, actions: [] }, "no_action"],
      [{ ...real, user: { id: "alice" } }, "malformed"],
      [{ ...real, container: { type: "message", channel_id: general.id } }, "malformed"],
    ];
    for (const [payload] of bad) fake.socket.deliver("interactive", payload, { acceptsResponsePayload: false });
    fake.socket.deliver("interactive", { type: "view_submission", user: real.user, view: { id: "V0VIEW" } }, { acceptsResponsePayload: true });
    fake.socket.deliver("interactive", { ...real, container: { type: "message", message_ts: asked.messageId, channel_id: general.id, is_ephemeral: true } }, { acceptsResponsePayload: false });
    await until(() => logged(records, "slack tap dropped").length === bad.length && logged(records, "slack tap skipped").length === 2);
    expect(logged(records, "slack tap dropped").map((record) => [record.reason, record.type])).toEqual(bad.map(([, reason]) => [reason, "block_actions"]));
    expect(logged(records, "slack tap skipped")).toMatchObject([{ reason: "not_block_actions", type: "view_submission" }, { reason: "ephemeral" }]);
    await until(() => fake.socket.unacked().length === 0);
    fake.from(alice).press(general.id, asked.messageId, "q1:reject");
    await until(() => events.length === 2);
    expect(events.map((event: GatewayEvent) => event.tap?.data)).toEqual(["q1:allow_once", "q1:reject"]);
    expect(new Set(events.map((event) => event.event_id)).size).toBe(2);
  });
});
