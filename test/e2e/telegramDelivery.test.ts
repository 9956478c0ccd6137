import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { MESSAGE_TEXT_LIMIT, type RecordedCall } from "../fakes/telegram/index.js";
import { someChats, until, useFakeBotApi } from "../fakes/telegram/fakeBotApiFixture.js";
import { startTelegramStack, type TelegramStack } from "../helpers/telegramStack.js";

// Issue 38's acceptance, end to end over the fake Bot API: how a turn's reply reaches a Telegram
// chat — paced bubbles, a reply over Telegram's 4096 characters, a 429 waited out, a voice note
// transcribed into the prompt. Exact pacing is pinned in virtual time (paceBubbles' marble specs);
// here the gaps are real and the bounds generous.

const fake = useFakeBotApi();
let stack: TelegramStack | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** The scripted agent's `envelope`: three bubbles. */
const BUBBLES = ["on it", "your flight moved to 8pm", "gate B12"];
const delivered = (method: string): RecordedCall[] => fake.api.callsOf(method).filter((call) => call.ok === true);

/** The scripted agent's `long <n>`: numbered words, cut at n characters. */
function scriptedWords(n: number): string {
  let text = "";
  for (let i = 1; text.length < n; i++) text += `word${i} `;
  return text.slice(0, n);
}

describe("Telegram: structured turns", () => {
  it("an envelope of three bubbles arrives as three messages, in order, paced apart", async () => {
    const { alice, dm } = someChats(fake.api);
    stack = await startTelegramStack(fake.api, { config: { delivery: { mode: "structured", bubble_delay_ms: 400 } } });
    fake.api.from(alice).text(dm.id, "envelope");
    await until(() => fake.api.botTexts(dm.id).length === 3, 15_000);
    expect(fake.api.botTexts(dm.id)).toEqual(BUBBLES);
    const sends = delivered("sendMessage");
    expect(sends.map((call) => call.params.text)).toEqual(BUBBLES);
    // Each leaves bubble_delay_ms after the previous one left, never before its ack (exact pacing is pinned
    // in virtual time by paceBubbles' marble specs): measured at the fake, arrivals 400 ms apart less
    // what a loaded machine adds to one request's way there, and none before the previous answer.
    sends.slice(1).forEach((call, i) => {
      expect(call.at).toBeGreaterThanOrEqual(sends[i]!.answeredAt!);
      expect(call.at - sends[i]!.at).toBeGreaterThanOrEqual(300);
      expect(call.at - sends[i]!.at).toBeLessThan(5_000);
    });
  });

  it("a 429 with retry_after 2 on the first bubble: it is sent again at least 2 s later, and all three arrive in order, none twice", async () => {
    const { alice, dm } = someChats(fake.api);
    stack = await startTelegramStack(fake.api, { config: { delivery: { mode: "structured" } } });
    fake.api.failNext("sendMessage", { error_code: 429, retry_after: 2 });
    fake.api.from(alice).text(dm.id, "envelope");
    await until(() => fake.api.botTexts(dm.id).length === 3, 20_000);
    const [refused, ...rest] = fake.api.callsOf("sendMessage");
    expect(refused).toMatchObject({ status: 429, params: { text: BUBBLES[0] } });
    expect(rest.map((call) => [call.status, call.params.text])).toEqual(BUBBLES.map((text) => [200, text]));
    expect(rest[0]!.at - refused!.answeredAt!).toBeGreaterThanOrEqual(2_000);
    expect(fake.api.botTexts(dm.id)).toEqual(BUBBLES);
    expect(stack.records.find((r) => r.reason === "retry_later")).toMatchObject({ platform: "telegram", retryAfterMs: 2_000, attempt: 1 });
  });
});

describe("Telegram: text turns", () => {
  it("a 10,000-character reply arrives as 3 messages of at most 4096 characters, in order, that join back into the reply", async () => {
    const { alice, dm } = someChats(fake.api);
    stack = await startTelegramStack(fake.api);
    fake.api.from(alice).text(dm.id, "long 10000");
    await until(() => fake.api.botTexts(dm.id).length === 3, 15_000);
    const sent = delivered("sendMessage").map((call) => String(call.params.text));
    expect(sent).toHaveLength(3);
    expect(MESSAGE_TEXT_LIMIT).toBe(4096);
    for (const text of sent) expect([...text].length).toBeLessThanOrEqual(MESSAGE_TEXT_LIMIT);
    // The split keeps the whitespace it cuts at, so the three join back into the reply (its end
    // trimmed by the text path); Telegram shows each message trimmed, in the order sent.
    expect(sent.join("")).toBe(scriptedWords(10_000).trimEnd());
    expect(fake.api.botTexts(dm.id)).toEqual(sent.map((text) => text.trim()));
  });

  it("a reply with a heading and a table arrives as one rich message (rich_messages on by default); a plain one as sendMessage", async () => {
    const { alice, dm } = someChats(fake.api);
    stack = await startTelegramStack(fake.api);
    fake.api.from(alice).text(dm.id, "say ## Plan\\n\\n| step | owner |\\n|---|---|\\n| deploy | ops |");
    await until(() => fake.api.botTexts(dm.id).length === 1, 15_000);
    fake.api.from(alice).text(dm.id, "say all done");
    await until(() => fake.api.botTexts(dm.id).length === 2, 15_000);
    expect(fake.api.shown(dm.id).filter((shown) => shown.from_bot).map((shown) => [shown.rich, shown.text])).toEqual([
      [true, "## Plan\n\n| step | owner |\n|---|---|\n| deploy | ops |"],
      [false, "all done"],
    ]);
    expect(delivered("sendRichMessage").map((call) => call.params.rich_message)).toEqual([{ markdown: "## Plan\n\n| step | owner |\n|---|---|\n| deploy | ops |" }]);
  });

  it("a voice note is fetched with getFile, transcribed by [stt], and its transcript is in the agent's prompt", async () => {
    const heard: string[] = [];
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        heard.push(Buffer.concat(chunks).toString("latin1"));
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ text: "book a flight to Oslo" }));
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const { alice, dm } = someChats(fake.api);
    stack = await startTelegramStack(fake.api, { config: { stt: { enabled: true, base_url: baseUrl } }, agentEnv: { SCENARIO: "echo" } });
    fake.api.from(alice).voice(dm.id, "OggS-telegram-voice");
    await until(() => fake.api.botTexts(dm.id).length === 1, 15_000);
    expect(fake.api.callsOf("getFile")).toHaveLength(1);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toContain("OggS-telegram-voice");
    const prompts = stack.prompts();
    expect(prompts).toHaveLength(1);
    expect(prompts[0]!.join("\n")).toContain("[Voice message transcript]: book a flight to Oslo");
    expect(fake.api.botTexts(dm.id)[0]).toContain("book a flight to Oslo");
  });
});
