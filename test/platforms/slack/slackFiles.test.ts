import { describe, expect, it } from "vitest";
import type { OutboundAttachment, OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import { SendError } from "../../../src/wire/index.js";
import { someConversations, until, useFakeSlack } from "../../fakes/slack/slackFixture.js";
import { logged, useSlackPorts } from "./slackTestConfig.js";

// A file an agent sends, posted by the Slack port on the fake Slack (filesUploadV2: the upload URL,
// the bytes, completeUploadExternal): what the person sees, the receipt, each failure as the
// gateway's ack names it.

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);

function withFile(channel: OutboundMessage["channel"], caption: string, bytes: Uint8Array, attachment: Partial<OutboundAttachment> = {}): OutboundMessage {
  return {
    reply_to: "",
    platform: "slack",
    channel,
    content: { type: "text", text: caption },
    attachment: { filename: "chart.png", mime_type: "image/png", size: bytes.byteLength, kind: "image", ref: "files/1", ...attachment },
  };
}

const text = (channel: OutboundMessage["channel"], body: string): OutboundMessage => ({ reply_to: "", platform: "slack", channel, content: { type: "text", text: body } });

async function refused(send: Promise<unknown>): Promise<SendError> {
  const error = await send.then(() => undefined, (err: unknown) => err);
  expect(error).toBeInstanceOf(SendError);
  return error as SendError;
}

describe("SlackPort: files", () => {
  const slack = useFakeSlack({ uploadLimitBytes: 64 * 1024 });
  const portOf = useSlackPorts(() => slack.fake);

  /** Alice asks in #general; the conversation is the thread under her message. */
  function conversation() {
    const conversations = someConversations(slack.fake);
    const parent = slack.fake.from(conversations.alice).message(conversations.general.id, "@turnstream a chart please");
    return { ...conversations, parent, channel: { id: conversations.general.id, thread_id: parent.ts } };
  }

  it("says it posts files", () => {
    expect(portOf().port.capabilities("slack")).toMatchObject({ outboundFiles: true });
  });

  it("uploads a file into the thread with its caption, in order with the text around it, the bytes exact; the receipt is the file id", async () => {
    const c = conversation();
    const { port, records } = portOf();
    await port.send(text(c.channel, "Here it comes."), { wantAck: true });
    const sent = await port.send(withFile(c.channel, "The **chart**, <@U0SOMEONE>", png), { wantAck: true, file: png });
    await port.send(text(c.channel, "That was it."), { wantAck: true });
    const shown = slack.fake.shown(c.general.id, { thread: c.parent.ts }).filter((message) => message.from_bot);
    expect(shown.map((message) => [message.text, message.files.map((file) => file.name)])).toEqual([
      ["Here it comes.", []],
      ["The *chart*, <@U0SOMEONE>", ["chart.png"]],
      ["That was it.", []],
    ]);
    expect(shown[1]!.files[0]!.bytes).toEqual(png);
    // completeUploadExternal names no message: the receipt is the file, which no edit or reaction can name.
    expect(sent).toEqual({ messageId: shown[1]!.files[0]!.id });
    expect(slack.fake.callsOf("files.completeUploadExternal")[0]!.params).toMatchObject({ channel_id: c.general.id, thread_ts: c.parent.ts, initial_comment: "The *chart*, <@U0SOMEONE>" });
    expect((await refused(port.send({ ...text(c.channel, "👀"), command: "add_reaction", reply_to: sent.messageId }, { wantAck: true }))).code).toBe("rejected");
    expect(logged(records, "slack refused a reply")).toEqual([]);
  });

  it("a file without a caption has no comment; at the top of a DM it goes without a thread", async () => {
    const c = conversation();
    const { port } = portOf();
    const doc = Buffer.from("a,b\n1,2\n");
    await port.send(withFile({ id: c.dm.id }, "", doc, { filename: "numbers.csv", mime_type: "text/csv", kind: "document" }), { wantAck: true, file: doc });
    const params = slack.fake.callsOf("files.completeUploadExternal")[0]!.params;
    expect(params).toMatchObject({ channel_id: c.dm.id });
    expect(params).not.toHaveProperty("initial_comment");
    expect(params).not.toHaveProperty("thread_ts");
    expect(slack.fake.shown(c.dm.id).map((message) => [message.text, message.files.map((file) => [file.name, file.mimetype, file.bytes.toString()])])).toEqual([["", [["numbers.csv", "text/csv", "a,b\n1,2\n"]]]]);
  });

  it("a caption over 4000 characters follows the file as messages, split as a text is; the receipt is the last one's ts", async () => {
    const c = conversation();
    const { port } = portOf();
    const caption = `${"a".repeat(3000)}\n${"b".repeat(3000)}`;
    const sent = await port.send(withFile(c.channel, caption, png), { wantAck: true, file: png });
    const shown = slack.fake.shown(c.general.id, { thread: c.parent.ts }).filter((message) => message.from_bot);
    expect(shown.map((message) => [message.text, message.files.length])).toEqual([
      ["", 1],
      ["a".repeat(3000), 0],
      ["b".repeat(3000), 0],
    ]);
    expect(sent.messageId).toBe(shown[2]!.ts);
  });

  it("a file over the workspace's limit is file_too_large (file_upload_size_restricted): no bytes sent, nothing shown, logged once", async () => {
    const c = conversation();
    const { port, records } = portOf();
    const big = Buffer.alloc(64 * 1024 + 1, 1);
    const error = await refused(port.send(withFile(c.channel, "too big", big, { filename: "big.bin", kind: "document" }), { wantAck: true, file: big }));
    expect(error.code).toBe("file_too_large");
    expect(slack.fake.uploads.all).toEqual([]);
    expect(slack.fake.callsOf("files.completeUploadExternal")).toEqual([]);
    expect(slack.fake.shown(c.general.id, { thread: c.parent.ts }).filter((message) => message.from_bot)).toEqual([]);
    expect(logged(records, "slack refused a reply")).toMatchObject([{ reason: "file_too_large", method: "files.uploadV2", error: "file_upload_size_restricted" }]);
  });

  it("a file whose bytes did not come, or not all of them, or whose thread is no ts, is rejected without a call", async () => {
    const c = conversation();
    const { port } = portOf();
    expect((await refused(port.send(withFile(c.channel, "x", png), { wantAck: true }))).code).toBe("rejected");
    expect((await refused(port.send(withFile(c.channel, "x", png, { size: png.byteLength - 1 }), { wantAck: true, file: png }))).code).toBe("rejected");
    expect((await refused(port.send(withFile({ id: c.general.id, thread_id: "tomorrow" }, "x", png), { wantAck: true, file: png }))).code).toBe("rejected");
    expect(slack.fake.callsOf("files.getUploadURLExternal")).toEqual([]);
  });

  it("a channel the bot is not in is rejected (not_in_channel) after the bytes went up: Slack checks it on completing", async () => {
    const c = conversation();
    const { port } = portOf();
    const error = await refused(port.send(withFile({ id: c.lobby.id }, "x", png), { wantAck: true, file: png }));
    expect([error.code, error.message]).toEqual(["rejected", "Slack refused files.uploadV2: not_in_channel"]);
  });

  it("each call of a file's upload may take the upload timeout, where a text's has the call timeout", async () => {
    const c = conversation();
    const { port } = portOf({}, { callTimeoutMs: 200, uploadTimeoutMs: 5_000 });
    slack.fake.delay("files.completeUploadExternal", 400);
    slack.fake.delay("chat.postMessage", 400);
    expect((await refused(port.send(text(c.channel, "slow"), { wantAck: true }))).code).toBe("unknown");
    await port.send(withFile(c.channel, "slow but fine", png), { wantAck: true, file: png });
    expect(slack.fake.shown(c.general.id, { thread: c.parent.ts }).filter((message) => message.files.length > 0).map((message) => message.text)).toEqual(["slow but fine"]);
  });

  it("the bot's own file_share message coming back over the socket starts no turn (own_message)", async () => {
    const c = conversation();
    const { port, events, records } = portOf();
    await port.prepare();
    port.start();
    await until(() => events.length === 1 && slack.fake.socket.unacked().length === 0);
    const before = slack.fake.socket.sent.length;
    await port.send(withFile(c.channel, "here", png), { wantAck: true, file: png });
    await until(() => slack.fake.socket.sent.length > before);
    const eventId = slack.fake.socket.sent[before]!.event_id;
    await until(() => logged(records, "slack event skipped").some((record) => record.event_id === eventId));
    expect(logged(records, "slack event skipped").find((record) => record.event_id === eventId)).toMatchObject({ reason: "own_message" });
    expect(events).toHaveLength(1);
  });
});

describe("SlackPort: files, when Slack's answer lists the share", () => {
  const slack = useFakeSlack({ completeUploadShares: true });
  const portOf = useSlackPorts(() => slack.fake);

  it("the receipt is the ts of the message that shows the file, which edits and reactions can name", async () => {
    const { general, alice } = someConversations(slack.fake);
    const parent = slack.fake.from(alice).message(general.id, "hi");
    const { port } = portOf();
    const sent = await port.send(withFile({ id: general.id, thread_id: parent.ts }, "a chart", png), { wantAck: true, file: png });
    const shown = slack.fake.shown(general.id, { thread: parent.ts }).find((message) => message.from_bot)!;
    expect(sent).toEqual({ messageId: shown.ts });
    await port.send({ ...text({ id: general.id, thread_id: parent.ts }, "✅"), command: "add_reaction", reply_to: sent.messageId }, { wantAck: true });
    expect(slack.fake.shown(general.id, { thread: parent.ts }).find((message) => message.from_bot)!.reactions).toEqual(["white_check_mark"]);
  });
});
