import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { BOT, refusal, someChats, TOKEN, useFakeBotApi } from "./fakeBotApiFixture.js";

describe("fake Bot API: HTTP as Telegram answers it", () => {
  const fake = useFakeBotApi();

  it("answers getMe to grammY with the configured bot", async () => {
    const me = await fake.client.getMe();
    expect(me).toMatchObject({ id: BOT.id, is_bot: true, username: BOT.username, first_name: BOT.first_name });
  });

  it("refuses a wrong token with 401 Unauthorized and an unknown method with 404 Not Found", async () => {
    const wrong = await fetch(`${fake.api.root}/bot123:nope/getMe`);
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ ok: false, error_code: 401, description: "Unauthorized" });
    const unknown = await fetch(`${fake.api.root}/bot${TOKEN}/sendTelepathy`, { method: "POST" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ ok: false, error_code: 404, description: "Not Found" });
  });

  it("reads parameters from JSON, urlencoded, multipart and the query string alike", async () => {
    const { dm } = someChats(fake.api);
    const url = `${fake.api.root}/bot${TOKEN}/sendMessage`;
    const answers = await Promise.all([
      fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ chat_id: dm.id, text: "json" }) }),
      fetch(url, { method: "POST", body: new URLSearchParams({ chat_id: String(dm.id), text: "form" }) }),
      fetch(url, { method: "POST", body: formData({ chat_id: String(dm.id), text: "multipart" }) }),
      fetch(`${url}?chat_id=${dm.id}&text=query`),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(fake.api.botTexts(dm.id))).toEqual(new Set(["json", "form", "multipart", "query"]));
    expect(fake.api.callsOf("sendMessage").map((call) => call.encoding).sort()).toEqual(["form", "json", "multipart", "query"]);
  });

  it("reads a nested object sent as JSON text in a form (reply_markup), and refuses one that does not parse", async () => {
    const { dm } = someChats(fake.api);
    const url = `${fake.api.root}/bot${TOKEN}/sendMessage`;
    const keyboard = JSON.stringify({ inline_keyboard: [[{ text: "Go", callback_data: "go" }]] });
    const good = await fetch(url, { method: "POST", body: new URLSearchParams({ chat_id: String(dm.id), text: "pick", reply_markup: keyboard }) });
    expect(((await good.json()) as { result: { reply_markup: unknown } }).result.reply_markup).toEqual(JSON.parse(keyboard));
    const bad = await fetch(url, { method: "POST", body: new URLSearchParams({ chat_id: String(dm.id), text: "pick", reply_markup: "{inline" }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ ok: false, error_code: 400, description: "Bad Request: can't parse reply keyboard markup JSON object" });
  });

  it("matches method names case-insensitively, as Telegram does, and records them by their documented name", async () => {
    const answer = await fetch(`${fake.api.root}/bot${TOKEN}/GETME`);
    expect(answer.status).toBe(200);
    expect(fake.api.calls.at(-1)).toMatchObject({ method: "getMe", status: 200, ok: true });
  });

  it("answers 401 to every call while the token is revoked, and again normally once restored", async () => {
    fake.api.revokeToken();
    const error = await refusal(fake.client.getMe());
    expect(error).toMatchObject({ error_code: 401, description: "Unauthorized" });
    fake.api.restoreToken();
    await expect(fake.client.getMe()).resolves.toMatchObject({ id: BOT.id });
  });

  it("is reached over HTTP from another process, as a spawned turnstream reaches it", async () => {
    const { dm } = someChats(fake.api);
    const script = `const r = await fetch(process.argv[1] + "/sendMessage", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ chat_id: ${dm.id}, text: "from a child" }) }); process.stdout.write(String(r.status));`;
    // Asynchronously: the fake answers from this process's event loop.
    const child = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script, `${fake.api.root}/bot${TOKEN}`], { timeout: 20_000 });
    expect(child.stdout).toBe("200");
    expect(fake.api.botTexts(dm.id)).toEqual(["from a child"]);
  });

  it("records every call with its parameters and outcome, in arrival order", async () => {
    const { dm } = someChats(fake.api);
    await fake.client.sendMessage(dm.id, "one");
    await refusal(fake.client.sendMessage(dm.id, ""));
    expect(fake.api.calls.map((call) => [call.method, call.status, call.description])).toEqual([
      ["sendMessage", 200, undefined],
      ["sendMessage", 400, "Bad Request: message text is empty"],
    ]);
    expect(fake.api.calls[0]!.params).toMatchObject({ chat_id: dm.id, text: "one" });
  });
});

function formData(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}
