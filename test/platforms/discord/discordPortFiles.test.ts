import { describe, expect, it } from "vitest";
import type { OutboundAttachment, OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import { BOT, refused, someGuild, until, useDiscordPort } from "./portFixture.js";

/** A file an agent sends, posted by the port on the fake Discord: what the person sees, and each failure as the gateway's ack names it. */
describe("DiscordPort: files", () => {
  const t = useDiscordPort({ uploadLimitBytes: 64 * 1024 });

  /** Alice mentions the bot in #general; the port opens the thread the conversation lives in. */
  async function conversation() {
    const guild = someGuild(t.fake);
    await t.open();
    await until(() => t.port.isConnected && t.fake.gateway.liveSessions === 1);
    const trigger = t.fake.from(guild.alice).message(guild.general.id, `<@${BOT.id}> draw me a chart`);
    await until(() => t.events.length === 1);
    const channel = { id: guild.general.id, thread_id: trigger.id };
    const text = (body: string): OutboundMessage => ({ reply_to: "", platform: "discord", channel, content: { type: "text", text: body } });
    const withFile = (caption: string, bytes: Uint8Array, attachment: Partial<OutboundAttachment> = {}, more: Partial<OutboundMessage> = {}): OutboundMessage => ({
      ...text(caption),
      attachment: { filename: "chart.png", mime_type: "image/png", size: bytes.byteLength, kind: "image", ref: "files/1", ...attachment },
      ...more,
    });
    return { ...guild, trigger, thread: trigger.id, text, withFile };
  }

  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 0, 255]);

  it("says it posts files", async () => {
    await t.open({}, { start: false });
    expect(t.port.capabilities("discord")).toMatchObject({ outboundFiles: true });
  });

  it("posts a file with its caption as one message in the thread, in order with the text around it, the bytes exact", async () => {
    const c = await conversation();
    await t.port.send(c.text("Here it comes."), { wantAck: true });
    const sent = await t.port.send(c.withFile("The **chart** <@everyone>", png), { wantAck: true, file: png });
    await t.port.send(c.text("That was it."), { wantAck: true });
    const shown = t.fake.shown(c.thread).filter((message) => message.fromBot);
    expect(shown.map((message) => [message.content, message.attachments])).toEqual([
      ["Here it comes.", []],
      ["The **chart** <@everyone>", ["chart.png"]],
      ["That was it.", []],
    ]);
    expect(shown[1]!.id).toBe(sent.messageId);
    expect(shown[1]!.files).toEqual([{ filename: "chart.png", contentType: "image/png", bytes: png }]);
    const upload = t.fake.callsOf("createMessage")[1]!;
    expect(upload).toMatchObject({ params: { "channel.id": c.thread }, files: ["chart.png"], body: { content: "The **chart** <@everyone>", attachments: [{ id: 0, filename: "chart.png" }], allowed_mentions: { parse: ["users", "roles"] } } });
  });

  it("a file without a caption is the file alone; a quote is its message_reference", async () => {
    const c = await conversation();
    const question = t.fake.from(c.alice).message(c.thread, "and the numbers?");
    const doc = Buffer.from("a,b\n1,2\n");
    const sent = await t.port.send(c.withFile("", doc, { filename: "numbers.csv", mime_type: "text/csv", kind: "document" }, { quote_message_id: question.id }), { wantAck: true, file: doc });
    const shown = t.fake.shown(c.thread).find((message) => message.id === sent.messageId)!;
    expect(shown).toMatchObject({ content: "", replyTo: question.id, attachments: ["numbers.csv"], files: [{ contentType: "text/csv", bytes: doc }] });
    expect(t.fake.callsOf("createMessage").at(-1)!.body).not.toHaveProperty("content");
  });

  it("a caption over 2000 characters follows the file as text messages, split as a text is; the receipt is the last", async () => {
    const c = await conversation();
    const caption = `${"a".repeat(1500)}\n${"b".repeat(1500)}`;
    const sent = await t.port.send(c.withFile(caption, png), { wantAck: true, file: png });
    const shown = t.fake.shown(c.thread).filter((message) => message.fromBot);
    expect(shown.map((message) => [message.content, message.attachments])).toEqual([
      ["", ["chart.png"]],
      ["a".repeat(1500), []],
      ["b".repeat(1500), []],
    ]);
    expect(sent.messageId).toBe(shown[2]!.id);
  });

  it("a file over Discord's upload limit is file_too_large (413, code 40005), once, even with a quote: nothing is posted", async () => {
    const c = await conversation();
    const big = Buffer.alloc(64 * 1024 + 1, 1);
    const error = await refused(t.port.send(c.withFile("too big", big, { filename: "big.bin", mime_type: "application/octet-stream", kind: "document" }, { quote_message_id: c.trigger.id }), { wantAck: true, file: big }));
    expect(error.code).toBe("file_too_large");
    expect(t.fake.callsOf("createMessage").map((call) => [call.status, call.code])).toEqual([[413, 40005]]);
    expect(t.fake.shown(c.thread).filter((message) => message.fromBot)).toEqual([]);
    expect(t.logs.filter((log) => log.msg === "discord refused a reply")).toMatchObject([{ reason: "file_too_large", route: "createMessage", status: 413, code: 40005 }]);
  });

  it("a file's message may take the upload timeout, where a text's has the reply timeout", async () => {
    const guild = someGuild(t.fake);
    await t.open({}, { start: false, replyTimeoutMs: 200, uploadTimeoutMs: 5_000 });
    t.fake.delay("createMessage", 400);
    const channel = { id: guild.general.id };
    const late = await refused(t.port.send({ reply_to: "", platform: "discord", channel, content: { type: "text", text: "slow" } }, { wantAck: true }));
    expect(late.code).toBe("unknown");
    const attachment = { filename: "chart.png", mime_type: "image/png", size: png.byteLength, kind: "image", ref: "files/1" } as const;
    const sent = await t.port.send({ reply_to: "", platform: "discord", channel, content: { type: "text", text: "slow but fine" }, attachment }, { wantAck: true, file: png });
    expect(t.fake.shown(guild.general.id).find((message) => message.id === sent.messageId)).toMatchObject({ content: "slow but fine", attachments: ["chart.png"] });
  });

  it("a file whose bytes did not come, or not all of them, is rejected without a call", async () => {
    const c = await conversation();
    expect((await refused(t.port.send(c.withFile("x", png), { wantAck: true }))).code).toBe("rejected");
    expect((await refused(t.port.send(c.withFile("x", png, { size: png.byteLength + 1 }), { wantAck: true, file: png }))).code).toBe("rejected");
    expect(t.fake.callsOf("createMessage")).toEqual([]);
  });
});
