import { afterEach, describe, expect, it } from "vitest";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { BotTokenRejectedError, TelegramPort, type TelegramPortOptions } from "../../../src/platforms/telegram/index.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { BOT, someChats, until, useFakeBotApi } from "../../fakes/telegram/fakeBotApiFixture.js";
import { telegramConfig } from "./telegramTestConfig.js";

// The Telegram port against the fake Bot API over HTTP, in this process: start-up, long polling
// and when an update is confirmed, files. Replies: telegramReplies.test.ts; webhook mode:
// telegramWebhook.test.ts; end to end with a broker: test/e2e/telegram*.test.ts.

const fake = useFakeBotApi();
const ports: TelegramPort[] = [];
afterEach(async () => {
  await Promise.all(ports.splice(0).map((port) => port.close()));
});

function portOf(overrides: Partial<TelegramPortOptions["config"]> = {}, options: Partial<TelegramPortOptions> = {}) {
  const { logger, records } = captureLogs();
  const port = new TelegramPort({ config: telegramConfig(fake.api, overrides), logger, backoff: { initialMs: 50, maxMs: 200, unauthorizedMs: 200 }, ...options });
  ports.push(port);
  const events: GatewayEvent[] = [];
  port.events.subscribe((event) => events.push(event));
  return { port, events, records };
}

describe("TelegramPort: start-up", () => {
  it("learns the bot's username from getMe, and gates groups by it", async () => {
    const { port } = portOf();
    expect(port.ingress.bot_username).toBeUndefined();
    await port.prepare();
    expect(port.botUsername).toBe(BOT.username);
    expect(port.ingress.bot_username).toBe(BOT.username);
    expect(port.ingress.denyEchoWindowMs).toBe(3_600_000);
  });

  it("a token Telegram refuses stops start-up with one line naming the key, never the token", async () => {
    fake.api.revokeToken();
    const { port } = portOf();
    const error = await port.prepare().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(BotTokenRejectedError);
    expect((error as BotTokenRejectedError).lines()).toEqual(["telegram.bot_token: rejected by the Bot API (401)"]);
    expect(String((error as Error).message)).not.toContain(fake.api.token);
  });

  it("removes a webhook before polling (getUpdates would answer 409 while one is set)", async () => {
    await fake.client.setWebhook("https://example.invalid/webhook/telegram");
    const { port, records } = portOf();
    await port.prepare();
    port.start();
    await until(() => port.isConnected);
    expect(fake.api.callsOf("deleteWebhook")).toHaveLength(1);
    expect(fake.api.webhook.setting).toBeUndefined();
    expect(records.find((r) => r.msg.startsWith("telegram webhook removed"))).toMatchObject({ reason: "webhook_set" });
  });
});

describe("TelegramPort: polling", () => {
  it("emits a message as its event, and confirms its update only once the edge settled it", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port, events } = portOf();
    await port.prepare();
    port.start();
    const sent = fake.api.from(alice).text(dm.id, "hello bot");
    await until(() => events.length === 1);
    expect(events[0]).toMatchObject({ event_id: `tg${sent.update_id}`, channel: { id: String(dm.id), type: "private" }, content: { text: "hello bot" } });
    // Not settled: the next poll has not gone out, so the update is still Telegram's.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.api.updates.pending().map((update) => update.update_id)).toEqual([sent.update_id]);
    port.settled(events[0]!);
    await until(() => fake.api.updates.pending().length === 0);
    expect(fake.api.callsOf("getUpdates").at(-1)?.params).toMatchObject({ offset: sent.update_id + 1, allowed_updates: ["message", "callback_query"] });
  });

  it("a port stopped mid-batch leaves what was not settled to the next one, and confirms what was", async () => {
    const { alice, dm, group } = someChats(fake.api);
    const first = portOf();
    await first.port.prepare();
    first.port.start();
    const one = fake.api.from(alice).text(dm.id, "one");
    const two = fake.api.from(alice).text(group.id, "two @turnstream_test_bot");
    await until(() => first.events.length === 2);
    first.port.settled(first.events[0]!);
    await first.port.close();
    // The stop confirmed `one` (settled) and kept `two` (not).
    expect(fake.api.updates.pending().map((update) => update.update_id)).toEqual([two.update_id]);
    const second = portOf();
    await second.port.prepare();
    second.port.start();
    await until(() => second.events.length === 1);
    expect(second.events[0]?.event_id).toBe(`tg${two.update_id}`);
    expect(one.update_id).toBeLessThan(two.update_id);
    expect(fake.api.maxConcurrentPollers).toBe(1);
  });

  it("confirms updates that make no event (edits) without emitting anything", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port, events } = portOf();
    await port.prepare();
    port.start();
    const sent = fake.api.from(alice).text(dm.id, "first");
    await until(() => events.length === 1);
    port.settled(events[0]!);
    fake.api.from(alice).edit(dm.id, sent.message!.message_id, "edited");
    const after = fake.api.from(alice).text(dm.id, "second");
    await until(() => events.length === 2);
    expect(events.map((event) => event.content.text)).toEqual(["first", "second"]);
    port.settled(events[1]!);
    await until(() => fake.api.updates.pending().length === 0);
    expect(fake.api.updates.filtered.map((update) => Object.keys(update))).toContainEqual(["update_id", "edited_message"]);
    expect(after.update_id).toBeGreaterThan(sent.update_id);
  });

  it("backs off on 5xx and 409, logging each episode once, and counts as disconnected while failing", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port, events, records } = portOf();
    await port.prepare();
    fake.api.failNext("getUpdates", { error_code: 502, description: "Bad Gateway" }, 3);
    port.start();
    await until(() => records.some((r) => r.msg === "telegram polling recovered"));
    const failed = records.filter((r) => r.msg === "telegram polling failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ reason: "server_error", status: 502 });
    expect(records.find((r) => r.msg === "telegram polling recovered")).toMatchObject({ reason: "server_error", failures: 3 });
    fake.api.from(alice).text(dm.id, "after the outage");
    await until(() => events.length === 1);
    expect(port.isConnected).toBe(true);
  });

  it("a 401 mid-run is logged at error and retried slowly; polling resumes once the token works again", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port, events, records } = portOf();
    await port.prepare();
    fake.api.revokeToken();
    port.start();
    await until(() => records.some((r) => r.msg === "telegram bot token rejected (401); retrying every minute"));
    expect(records.find((r) => r.msg === "telegram bot token rejected (401); retrying every minute")).toMatchObject({ level: 50, reason: "unauthorized", status: 401 });
    expect(port.isConnected).toBe(false);
    fake.api.restoreToken();
    fake.api.from(alice).text(dm.id, "back");
    await until(() => events.length === 1);
    expect(port.isConnected).toBe(true);
  });
});

describe("TelegramPort: files", () => {
  it("downloads a voice note into an audio attachment for [stt], and a PDF document into a file", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port, events } = portOf();
    await port.prepare();
    port.start();
    fake.api.from(alice).voice(dm.id, "OggS-voice-bytes", { caption: "listen" });
    fake.api.from(alice).document(dm.id, "%PDF-1.7", { fileName: "report.pdf", mimeType: "application/pdf" });
    await until(() => events.length === 2);
    expect(events[0]?.content).toEqual({
      type: "text",
      text: "listen",
      attachments: [{ type: "audio", filename: "voice.ogg", mime_type: "audio/ogg", data: Buffer.from("OggS-voice-bytes").toString("base64"), size: 16 }],
    });
    expect(events[1]?.content.attachments).toEqual([{ type: "file", filename: "report.pdf", mime_type: "application/pdf", data: Buffer.from("%PDF-1.7").toString("base64"), size: 8 }]);
  });

  it("downloads a photo's largest size into an image attachment and a text document into a text file, as the gateway's events carry them", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port, events } = portOf();
    await port.prepare();
    port.start();
    const sizes = fake.api.from(alice).photo(dm.id, "jpeg-bytes", { caption: "look" }).message!.photo!;
    fake.api.from(alice).document(dm.id, "a,b\n1,2\n", { fileName: "table.csv", mimeType: "text/csv" });
    await until(() => events.length === 2);
    // Only the largest size is fetched: the thumbnail's file is never asked for.
    expect(fake.api.callsOf("getFile").map((call) => call.params.file_id)).toEqual([sizes.at(-1)!.file_id, expect.any(String)]);
    expect(events[0]?.content).toEqual({
      type: "text",
      text: "look",
      attachments: [{ type: "image", filename: "photo.jpg", mime_type: "image/jpeg", data: Buffer.from("jpeg-bytes").toString("base64"), size: 10 }],
    });
    expect(events[1]?.content.attachments).toEqual([{ type: "text_file", filename: "table.csv", mime_type: "text/csv", data: Buffer.from("a,b\n1,2\n").toString("base64"), size: 8 }]);
  });

  it("a failed download becomes the attachment's status, and the event still comes, in its conversation's order", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port, events, records } = portOf();
    await port.prepare();
    port.start();
    fake.api.failNext("getFile", { error_code: 400, description: "Bad Request: file is too big" });
    fake.api.from(alice).photo(dm.id, "jpeg-bytes");
    fake.api.from(alice).text(dm.id, "and this");
    await until(() => events.length === 2);
    expect(events[0]?.content.attachments).toEqual([{ type: "image", filename: "photo.jpg", mime_type: "image/jpeg", data: "", size: 10, status: "download failed: Bad Request: file is too big" }]);
    expect(events[1]?.content.text).toBe("and this");
    expect(records.find((r) => r.msg === "telegram attachment not downloaded")).toMatchObject({ reason: "download_failed", type: "image" });
  });

  it("a download that takes too long is cut off, and the rest of the batch is not held behind it", async () => {
    const { alice, dm, group } = someChats(fake.api);
    const { port, events } = portOf({}, { downloadTimeoutMs: 300 });
    await port.prepare();
    port.start();
    fake.api.delay("getFile", 5_000);
    fake.api.from(alice).voice(dm.id, "slow");
    fake.api.from(alice).text(group.id, "other chat @turnstream_test_bot");
    await until(() => events.length === 1);
    expect(events[0]?.content.text).toBe("other chat @turnstream_test_bot");
    await until(() => events.length === 2);
    expect(events[1]?.content.attachments?.[0]?.status).toBe("download failed: timed out");
  });
});
