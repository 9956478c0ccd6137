import { DiscordAPIError, HTTPError } from "@discordjs/rest";
import { describe, expect, it } from "vitest";
import { botIdOf } from "../../../src/platforms/discord/botIdOf.js";
import { DiscordRateLimited } from "../../../src/platforms/discord/discordRest.js";
import { conversationChannel, targetChannels } from "../../../src/platforms/discord/replyTarget.js";
import { sendErrorOf } from "../../../src/platforms/discord/sendErrorOf.js";
import { slashAcknowledgement, slashReading, snowflakeTime } from "../../../src/platforms/discord/slashCommands.js";
import { TOKEN, BOT } from "../../fakes/discord/fakeDiscordFixture.js";

describe("replyTarget: where a reply goes and where its target message lives", () => {
  const inThread = { channel: { id: "100", thread_id: "200" } };
  it("new messages go to the thread, else the channel", () => {
    expect(conversationChannel(inThread)).toBe("200");
    expect(conversationChannel({ channel: { id: "300" } })).toBe("300");
    expect(conversationChannel({ channel: { id: "300", thread_id: "" } })).toBe("300");
  });

  it("the thread's starter (same id) is in the parent channel first, then the thread (a forum post); others in the thread", () => {
    expect(targetChannels(inThread, "200")).toEqual(["100", "200"]);
    expect(targetChannels(inThread, "201")).toEqual(["200"]);
    expect(targetChannels({ channel: { id: "300" } }, "301")).toEqual(["300"]);
  });
});

describe("sendErrorOf: Discord's failures as the gateway's ack names them", () => {
  const body = { files: undefined, body: undefined };
  it("429 → rate_limited with the wait; 4xx → rejected with the code; 5xx → unknown; not reached → disconnected", () => {
    expect(sendErrorOf("createMessage", new DiscordRateLimited(1337, false))).toMatchObject({ code: "rate_limited", retryAfterMs: 1337 });
    expect(sendErrorOf("createMessage", new DiscordRateLimited(0, true))).toMatchObject({ code: "rate_limited", retryAfterMs: 1000 });
    const forbidden = sendErrorOf("createMessage", new DiscordAPIError({ code: 50013, message: "Missing Permissions" }, 50013, 403, "POST", "/x", body));
    expect([forbidden.code, forbidden.message]).toEqual(["rejected", "Discord refused createMessage (403, code 50013): Missing Permissions"]);
    expect(sendErrorOf("createMessage", new HTTPError(503, "Service Unavailable", "POST", "/x", body)).code).toBe("unknown");
    expect(sendErrorOf("createMessage", Object.assign(new Error("fetch failed"), { cause: { code: "ECONNREFUSED" } })).code).toBe("disconnected");
    expect(sendErrorOf("createMessage", Object.assign(new Error("reset"), { cause: { code: "ECONNRESET" } })).code).toBe("unknown");
    expect(sendErrorOf("createMessage", Object.assign(new Error("aborted"), { name: "AbortError" })).code).toBe("unknown");
  });
});

describe("slash command shapes", () => {
  it("reads cancel and reset; anything else is unknown", () => {
    expect(slashReading("cancel")).toEqual({ kind: "command", text: "/cancel" });
    expect(slashReading("reset")).toEqual({ kind: "command", text: "/reset" });
    expect(slashReading("models")).toEqual({ kind: "unknown", name: "models" });
    expect(slashAcknowledgement(slashReading("models"), "conversation")).toBe("⚠️ /models is not available here.");
    expect(slashAcknowledgement(slashReading("reset"), "not_allowed")).toBe("⚠️ This bot does not take commands from you here.");
  });

  it("an interaction's time is its snowflake's", () => {
    expect(snowflakeTime("175928847299117063")).toBe("2016-04-30T11:18:25.796Z");
    expect(snowflakeTime("nope")).toBe("");
  });

  it("the bot's id is the token's first part, base64", () => {
    expect(botIdOf(TOKEN)).toBe(BOT.id);
    expect(botIdOf("garbage")).toBe("0");
  });
});
