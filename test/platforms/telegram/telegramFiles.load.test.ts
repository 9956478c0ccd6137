import { afterEach, describe, expect, it } from "vitest";
import { maxFileBytes } from "../../../operators/delivery/files/index.js";
import type { OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import { TelegramPort } from "../../../src/platforms/telegram/index.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { someChats, useFakeBotApi } from "../../fakes/telegram/fakeBotApiFixture.js";
import { refusedWith, reply } from "./replyFixtures.js";
import { telegramConfig } from "./telegramTestConfig.js";

// Files at Telegram's own upload limit (50 MB), over HTTP to the fake Bot API: seconds each on a
// loaded machine, so here rather than in telegramFiles.test.ts.

const fake = useFakeBotApi();
const ports: TelegramPort[] = [];
afterEach(async () => {
  await Promise.all(ports.splice(0).map((port) => port.close()));
});

function document(chat: number, filename: string, bytes: Uint8Array): OutboundMessage {
  return { ...reply(chat, ""), attachment: { filename, mime_type: "application/octet-stream", size: bytes.length, kind: "document", ref: filename } };
}

describe("TelegramPort.send: files at Telegram's upload limit", () => {
  it("a 60 MB file is refused by Telegram (413): file_too_large, nothing in the chat", async () => {
    const { dm } = someChats(fake.api);
    const port = new TelegramPort({ config: telegramConfig(fake.api), logger: captureLogs().logger });
    ports.push(port);
    const big = new Uint8Array(60 * 1000 * 1000);
    const error = await refusedWith(port.send(document(dm.id, "dump.bin", big), { wantAck: true, file: big }));
    expect(error.code).toBe("file_too_large");
    expect(fake.api.callsOf("sendDocument").map((call) => call.status)).toEqual([413]);
    expect(fake.api.shown(dm.id)).toEqual([]);
  });

  it("a file of turnstream's Telegram bound (maxFileBytes, 50 MB) goes up whole", async () => {
    const { dm } = someChats(fake.api);
    const port = new TelegramPort({ config: telegramConfig(fake.api), logger: captureLogs().logger });
    ports.push(port);
    const bytes = new Uint8Array(maxFileBytes("telegram", undefined));
    bytes.fill(7, 0, 1_000);
    bytes[bytes.length - 1] = 9;
    await port.send(document(dm.id, "archive.zip", bytes), { wantAck: true, file: bytes });
    const [shown] = fake.api.shown(dm.id);
    expect(shown?.file).toMatchObject({ kind: "document", name: "archive.zip", size: bytes.length });
    expect(shown?.file?.bytes.equals(bytes)).toBe(true);
  });
});
