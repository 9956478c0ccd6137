import { describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import { SendError } from "../../../src/wire/index.js";
import { someConversations, useFakeSlack } from "../../fakes/slack/slackFixture.js";
import { logged, useSlackPorts } from "./slackTestConfig.js";

// Buttons through the Slack port against the fake's Web API (issue 41): choices as Block Kit on a
// send and an edit, and answer_tap as an ephemeral notice. Taps coming in: slackTaps.test.ts.

const slack = useFakeSlack();
const portOf = useSlackPorts(() => slack.fake);

const choices = [
  { label: "Allow once", data: "q1:allow_once" },
  { label: "Reject", data: "q1:reject" },
];

function message(channel: string, text: string, extra: Partial<OutboundMessage> = {}): OutboundMessage {
  return { reply_to: "", platform: "slack", channel: { id: channel }, content: { type: "text", text }, ...extra };
}

async function refusal(send: Promise<unknown>): Promise<SendError> {
  const error = await send.then(() => undefined, (err: unknown) => err);
  expect(error).toBeInstanceOf(SendError);
  return error as SendError;
}

describe("SlackPort: buttons on messages", () => {
  it("says it has buttons", () => {
    expect(portOf().port.capabilities("slack")).toMatchObject({ buttons: true });
  });

  it("a send with choices: the text as a mrkdwn section, the buttons under it, the text also the fallback", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const parent = fake.from(alice).message(general.id, "@turnstream clean up");
    const { port } = portOf();
    const sent = await port.send(message(general.id, "**Run** `rm -rf build`?", { channel: { id: general.id, thread_id: parent.ts }, choices }));
    const shown = fake.shown(general.id, { thread: parent.ts }).find((each) => each.ts === sent.messageId)!;
    expect(shown.text).toBe("*Run* `rm -rf build`?");
    expect(shown.message.blocks).toMatchObject([
      { type: "section", text: { type: "mrkdwn", text: "*Run* `rm -rf build`?" } },
      {
        type: "actions",
        elements: [
          { type: "button", text: { type: "plain_text", text: "Allow once" }, action_id: "q1:allow_once", value: "q1:allow_once" },
          { type: "button", text: { type: "plain_text", text: "Reject" }, action_id: "q1:reject", value: "q1:reject" },
        ],
      },
    ]);
    expect(fake.callsOf("chat.postMessage")[0]!.params).toMatchObject({ channel: general.id, thread_ts: parent.ts });
  });

  it("a text longer than a section: one message, its text in sections, the buttons on its last block; the receipt is that message", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    const { port } = portOf();
    const paragraphs = Array.from({ length: 3 }, (_, index) => `${index}: ${"word ".repeat(240)}`);
    const sent = await port.send(message(general.id, paragraphs.join("\n\n"), { choices }));
    expect(fake.callsOf("chat.postMessage")).toHaveLength(1);
    const shown = fake.shown(general.id).find((each) => each.ts === sent.messageId)!;
    const blocks = shown.message.blocks as { type: string; text?: { text: string } }[];
    expect(blocks.map((block) => block.type)).toEqual(["section", "section", "actions"]);
    expect(blocks.slice(0, -1).map((block) => block.text!.text).join("\n")).toBe(paragraphs.join("\n\n"));
  });

  it("choices: [] on a plain send is a plain message; invalid choices are refused without a call", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    const { port } = portOf();
    const plain = await port.send(message(general.id, "no buttons", { choices: [] }));
    expect(fake.shown(general.id).find((each) => each.ts === plain.messageId)!.message.blocks).toBeUndefined();
    const calls = fake.calls.length;
    expect((await refusal(port.send(message(general.id, "?", { choices: [{ label: "Bad", data: "no spaces please" }] })))).code).toBe("rejected");
    expect((await refusal(port.send(message(general.id, "?", { choices: [choices[0]!, choices[0]!] })))).code).toBe("rejected");
    expect(fake.calls).toHaveLength(calls);
  });

  it("an edit with choices: [] removes the buttons, the message its text again; with new choices it shows those", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    const { port } = portOf();
    const sent = await port.send(message(general.id, "Run `ls`?", { choices }));
    const shown = () => fake.shown(general.id).find((each) => each.ts === sent.messageId)!;
    await expect(port.send(message(general.id, "Run `ls`? Which one?", { command: "edit_message", reply_to: sent.messageId, choices: [{ label: "This", data: "q2:this" }] }))).resolves.toEqual({ messageId: sent.messageId });
    expect(shown().message.blocks).toMatchObject([{ type: "section", text: { text: "Run `ls`? Which one?" } }, { type: "actions", elements: [{ action_id: "q2:this" }] }]);
    await port.send(message(general.id, "Run `ls`? **Allowed once** by Ali", { command: "edit_message", reply_to: sent.messageId, choices: [] }));
    expect(shown().message.blocks).toBeUndefined();
    expect(shown().text).toBe("Run `ls`? *Allowed once* by Ali");
    expect(fake.callsOf("chat.update").at(-1)!.params).toMatchObject({ blocks: "[]" });
  });

  it("an edit without choices sends the text alone: Slack keeps the message's blocks", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    const { port } = portOf();
    const sent = await port.send(message(general.id, "Run `ls`?", { choices }));
    await port.send(message(general.id, "Run `ls`? (still waiting)", { command: "edit_message", reply_to: sent.messageId }));
    expect(fake.callsOf("chat.update")[0]!.params.blocks).toBeUndefined();
    const shown = fake.shown(general.id).find((each) => each.ts === sent.messageId)!;
    expect(shown.message.blocks).toMatchObject([{ type: "section", text: { text: "Run `ls`?" } }, { type: "actions" }]);
  });
});

describe("SlackPort: answer_tap", () => {
  const tapOn = (channel: string, user: string, thread = "") => ({ command: "answer_tap" as const, reply_to: `${channel}:${user}:${thread}` });

  it("a notice is an ephemeral message to the person who tapped, in the thread they tapped in; the receipt names no message", async () => {
    const { fake } = slack;
    const { general, bob, alice } = someConversations(fake);
    const parent = fake.from(alice).message(general.id, "@turnstream deploy");
    const { port } = portOf();
    const receipt = await port.send(message(general.id, "Only **Ali** can answer this.", { channel: { id: general.id, thread_id: parent.ts }, ...tapOn(general.id, bob.id, parent.ts) }));
    expect(receipt).toEqual({ messageId: "" });
    expect(fake.ephemerals).toEqual([{ channel: general.id, user: bob.id, text: "Only *Ali* can answer this.", blocks: undefined, thread_ts: parent.ts, message_ts: expect.any(String) }]);
    expect(fake.botTexts(general.id, { thread: parent.ts })).toEqual([]);
  });

  it("on a top-level message the notice goes beside it, with no thread_ts", async () => {
    const { fake } = slack;
    const { dm, alice } = someConversations(fake);
    const { port } = portOf();
    await port.send(message(dm.id, "Already answered.", tapOn(dm.id, alice.id)));
    expect(fake.callsOf("chat.postEphemeral")[0]!.params).toEqual({ channel: dm.id, user: alice.id, text: "Already answered." });
  });

  it("no notice is no call", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const { port } = portOf();
    await expect(port.send(message(general.id, "", tapOn(general.id, alice.id, "1714204397.000100")))).resolves.toEqual({ messageId: "" });
    expect(fake.calls).toEqual([]);
  });

  it("a tap id that is none is refused without a call; Slack's refusal (the person left) is rejected and logged", async () => {
    const { fake } = slack;
    const { general, secret, bob } = someConversations(fake);
    const { port, records } = portOf();
    const bad = await refusal(port.send(message(general.id, "hi", { command: "answer_tap", reply_to: "callback-123" })));
    expect([bad.code, bad.message]).toEqual(["rejected", 'answer_tap: "callback-123" is not a Slack tap id']);
    expect(fake.calls).toEqual([]);
    const gone = await refusal(port.send(message(secret.id, "Only Ali can answer this.", tapOn(secret.id, bob.id))));
    expect([gone.code, gone.message]).toEqual(["rejected", "Slack refused chat.postEphemeral: user_not_in_channel"]);
    expect(logged(records, "slack refused a reply")).toMatchObject([{ reason: "rejected", method: "chat.postEphemeral", error: "user_not_in_channel" }]);
  });
});

describe("SlackPort: notice (a message one person sees)", () => {
  it("says it can show one, and sends it as an ephemeral message to that person, in the thread", async () => {
    const { fake } = slack;
    const { general, bob, alice } = someConversations(fake);
    const parent = fake.from(alice).message(general.id, "@turnstream deploy");
    const { port } = portOf();
    expect(port.capabilities("slack")).toMatchObject({ notices: true });
    const receipt = await port.send(message(general.id, "Only Ali can answer this.", { command: "notice", reply_to: bob.id, channel: { id: general.id, thread_id: parent.ts }, plainText: true }));
    expect(receipt).toEqual({ messageId: "" });
    const [call] = fake.callsOf("chat.postEphemeral");
    expect(call!.params).toMatchObject({ channel: general.id, user: bob.id, thread_ts: parent.ts });
    expect(fake.ephemerals.map((e) => e.user)).toEqual([bob.id]);
    expect(fake.botTexts(general.id, { thread: parent.ts })).toEqual([]);
  });

  it("refuses a reply_to that is no Slack user id without a call, and sends nothing for no text", async () => {
    const { fake } = slack;
    const { general, bob } = someConversations(fake);
    const { port } = portOf();
    const bad = await refusal(port.send(message(general.id, "hi", { command: "notice", reply_to: "<!channel>" })));
    expect([bad.code, bad.message]).toEqual(["rejected", 'notice: "<!channel>" is not a Slack user id']);
    await expect(port.send(message(general.id, " ", { command: "notice", reply_to: bob.id }))).resolves.toEqual({ messageId: "" });
    expect(fake.calls).toEqual([]);
  });
});
