import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { LogLevel, WebClient } from "@slack/web-api";
import { refusal, someConversations, useFakeSlack } from "./slackFixture.js";

describe("fake Slack Web API: HTTP, encodings and tokens as Slack answers them", () => {
  const slack = useFakeSlack();
  const post = (method: string, init: RequestInit) => fetch(`${slack.fake.apiUrl}${method}`, { method: "POST", ...init }).then(async (answer) => ({ status: answer.status, body: (await answer.json()) as Record<string, unknown> }));
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it("answers auth.test to WebClient with the bot's user, bot and team ids", async () => {
    const { fake, web } = slack;
    await expect(web.auth.test()).resolves.toMatchObject({ ok: true, user_id: fake.bot.user.id, bot_id: fake.bot.botId, team_id: fake.workspace.team.id, user: "turnstream" });
    expect(fake.calls[0]).toMatchObject({ method: "auth.test", httpMethod: "POST", token: "bot", httpStatus: 200, ok: true });
  });

  it("reads form (WebClient's), JSON, multipart and query arguments alike; a token as a form argument too", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    const answers = await Promise.all([
      post("chat.postMessage", { headers: { ...bearer(fake.botToken), "content-type": "application/json; charset=utf-8" }, body: JSON.stringify({ channel: general.id, text: "json" }) }),
      post("chat.postMessage", { body: new URLSearchParams({ token: fake.botToken, channel: general.id, text: "form" }) }),
      post("chat.postMessage", { headers: bearer(fake.botToken), body: formData({ channel: general.id, text: "multipart" }) }),
      fetch(`${fake.apiUrl}chat.postMessage?channel=${general.id}&text=query`, { headers: bearer(fake.botToken) }).then(async (answer) => ({ status: answer.status, body: (await answer.json()) as Record<string, unknown> })),
    ]);
    expect(answers.map((answer) => answer.body.ok)).toEqual([true, true, true, true]);
    expect(new Set(fake.botTexts(general.id))).toEqual(new Set(["json", "form", "multipart", "query"]));
    expect(fake.callsOf("chat.postMessage").map((call) => call.encoding).sort()).toEqual(["form", "json", "multipart", "query"]);
  });

  it("refuses no token (not_authed), a stranger's (invalid_auth), one in the query string or a JSON body (not read), a revoked one (token_revoked)", async () => {
    const { fake } = slack;
    expect((await post("auth.test", {})).body).toEqual({ ok: false, error: "not_authed" });
    expect((await post("auth.test", { headers: bearer("xoxb-someone-else") })).body).toEqual({ ok: false, error: "invalid_auth" });
    expect((await fetch(`${fake.apiUrl}auth.test?token=${fake.botToken}`).then((answer) => answer.json())) as object).toEqual({ ok: false, error: "not_authed" });
    expect((await post("auth.test", { headers: { "content-type": "application/json" }, body: JSON.stringify({ token: fake.botToken }) })).body).toEqual({ ok: false, error: "not_authed" });
    fake.revokeToken("bot");
    expect(await refusal(slack.web.auth.test())).toBe("token_revoked");
    fake.restoreToken("bot");
    await expect(slack.web.auth.test()).resolves.toMatchObject({ ok: true });
  });

  it("takes the xapp- token only for apps.connections.open and the xoxb- token only for the rest (not_allowed_token_type)", async () => {
    const { fake, web } = slack;
    const app = new WebClient(fake.appToken, { slackApiUrl: fake.apiUrl, logLevel: LogLevel.ERROR, retryConfig: { retries: 0 } });
    expect(await refusal(web.apps.connections.open())).toBe("not_allowed_token_type");
    expect(await refusal(app.auth.test())).toBe("not_allowed_token_type");
    expect(await refusal(app.chat.postMessage({ channel: "C1", text: "x" }))).toBe("not_allowed_token_type");
    await expect(app.apps.connections.open()).resolves.toMatchObject({ ok: true, url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=[\w-]+&app_id=A\w+$/) });
    expect(fake.callsOf("apps.connections.open").map((call) => call.token)).toEqual(["bot", "app"]);
  });

  it("refuses an unknown method, GET for apps.connections.open, and bodies it cannot read, in Slack's codes", async () => {
    const { fake } = slack;
    expect((await post("chat.telepathy", { headers: bearer(fake.botToken) })).body).toEqual({ ok: false, error: "unknown_method", req_method: "chat.telepathy" });
    expect(await fetch(`${fake.apiUrl}apps.connections.open`, { headers: bearer(fake.appToken) }).then((answer) => answer.json())).toEqual({ ok: false, error: "insecure_request" });
    const auth = bearer(fake.botToken);
    expect((await post("chat.postMessage", { headers: { ...auth, "content-type": "text/csv" }, body: "a,b" })).body.error).toBe("invalid_post_type");
    expect((await post("chat.postMessage", { headers: { ...auth, "content-type": "application/json" }, body: "{nope" })).body.error).toBe("invalid_json");
    expect((await post("chat.postMessage", { headers: { ...auth, "content-type": "application/json" }, body: "[1]" })).body.error).toBe("json_not_object");
    expect((await post("chat.postMessage", { headers: { ...auth, "content-type": "application/x-www-form-urlencoded; charset=koi8-r" }, body: "text=x" })).body.error).toBe("invalid_charset");
    // Every refusal is HTTP 200, as Slack answers them.
    expect(new Set(fake.calls.map((call) => call.httpStatus))).toEqual(new Set([200]));
  });

  it("reads no JSON body for the read methods (users.info takes form or query arguments only)", async () => {
    const { fake } = slack;
    const { alice } = someConversations(fake);
    const json = await post("users.info", { headers: { ...bearer(fake.botToken), "content-type": "application/json" }, body: JSON.stringify({ user: alice.id }) });
    expect(json.body).toEqual({ ok: false, error: "user_not_found" });
    await expect(slack.web.users.info({ user: alice.id })).resolves.toMatchObject({ ok: true, user: { id: alice.id } });
  });

  it("answers the bot token with x-oauth-scopes, which WebClient reads into response_metadata.scopes", async () => {
    const { fake, web } = slack;
    const { alice } = someConversations(fake);
    const answer = await web.users.info({ user: alice.id });
    expect(answer.response_metadata?.scopes).toContain("users:read");
  });

  it("records every call with its arguments and outcome, never the token", async () => {
    const { fake, web } = slack;
    const { general } = someConversations(fake);
    await web.chat.postMessage({ channel: general.id, text: "one" });
    expect(await refusal(web.chat.postMessage({ channel: general.id, text: "" }))).toBe("no_text");
    expect(fake.calls.map((call) => [call.method, call.ok, call.error])).toEqual([
      ["chat.postMessage", true, undefined],
      ["chat.postMessage", false, "no_text"],
    ]);
    expect(JSON.stringify(fake.calls)).not.toContain(fake.botToken);
  });

  it("is reached over HTTP from another process, as a spawned turnstream reaches it", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    const script = `const r = await fetch(process.argv[1] + "chat.postMessage", { method: "POST", headers: { authorization: "Bearer " + process.argv[2], "content-type": "application/json" }, body: JSON.stringify({ channel: "${general.id}", text: "from a child" }) }); process.stdout.write(String((await r.json()).ok));`;
    const child = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script, fake.apiUrl, fake.botToken], { timeout: 20_000 });
    expect(child.stdout).toBe("true");
    expect(fake.botTexts(general.id)).toEqual(["from a child"]);
  });
});

describe("fake Slack Web API: scopes", () => {
  const slack = useFakeSlack({ botScopes: ["chat:write"] });

  it("refuses a method whose scope the bot lacks: missing_scope with needed and provided", async () => {
    const { fake, web } = slack;
    const { alice } = someConversations(fake);
    await expect(web.users.info({ user: alice.id })).rejects.toMatchObject({ data: { ok: false, error: "missing_scope", needed: "users:read", provided: "chat:write" } });
  });
});

function formData(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}
