import { describe, expect, it } from "vitest";
import { GrammyError } from "grammy";
import { refusal, someChats, useFakeBotApi } from "./fakeBotApiFixture.js";

describe("fake Bot API: failures a test injects", () => {
  const fake = useFakeBotApi();

  it("failNext answers 429 with parameters.retry_after, which reaches grammY as a GrammyError; the next call succeeds", async () => {
    const { dm } = someChats(fake.api);
    fake.api.failNext("sendMessage", { error_code: 429, retry_after: 2 });
    const error = await refusal(fake.client.sendMessage(dm.id, "too fast"));
    expect(error).toBeInstanceOf(GrammyError);
    expect(error).toMatchObject({ error_code: 429, description: "Too Many Requests: retry after 2", parameters: { retry_after: 2 }, method: "sendMessage" });
    expect(fake.api.botTexts(dm.id)).toEqual([]);
    await expect(fake.client.sendMessage(dm.id, "later")).resolves.toMatchObject({ text: "later" });
    expect(fake.api.callsOf("sendMessage").map((call) => call.status)).toEqual([429, 200]);
  });

  it("failNext takes a count, any code and description, and only touches the method named", async () => {
    const { dm } = someChats(fake.api);
    fake.api.failNext("editMessageText", { error_code: 500, description: "Internal Server Error: restart" }, 2);
    const sent = await fake.client.sendMessage(dm.id, "v1");
    for (let i = 0; i < 2; i++) {
      expect(await refusal(fake.client.editMessageText(dm.id, sent.message_id, "v2"))).toMatchObject({ error_code: 500, description: "Internal Server Error: restart" });
    }
    await expect(fake.client.editMessageText(dm.id, sent.message_id, "v2")).resolves.toMatchObject({ text: "v2" });
  });

  it("delays answers of one method, or of every method with '*'", async () => {
    const { dm } = someChats(fake.api);
    fake.api.delay("sendChatAction", 300);
    const started = Date.now();
    await fake.client.sendChatAction(dm.id, "typing");
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const quick = Date.now();
    await fake.client.getMe();
    expect(Date.now() - quick).toBeLessThan(290);
    fake.api.delay("*", 200);
    const slow = Date.now();
    await fake.client.getMe();
    expect(Date.now() - slow).toBeGreaterThanOrEqual(190);
  });
});
