import { describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import { SendError } from "../../../src/wire/index.js";
import { FakeSlack } from "../../fakes/slack/index.js";
import { someConversations, useFakeSlack } from "../../fakes/slack/slackFixture.js";
import { logged, useSlackPorts } from "./slackTestConfig.js";

// Replies through the Slack port against the fake's Web API, without a socket: sends need none.

const slack = useFakeSlack();
const portOf = useSlackPorts(() => slack.fake);

function message(channel: string, text: string, extra: Partial<OutboundMessage> = {}): OutboundMessage {
  return { reply_to: "", platform: "slack", channel: { id: channel }, content: { type: "text", text }, ...extra };
}

async function refusal(send: Promise<unknown>): Promise<SendError> {
  const error = await send.then(() => undefined, (err: unknown) => err);
  expect(error).toBeInstanceOf(SendError);
  return error as SendError;
}

describe("SlackPort: replies (§3.6)", () => {
  it("posts into the thread in mrkdwn, edits and deletes by ts", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const parent = fake.from(alice).message(general.id, "@turnstream format please");
    const { port } = portOf();
    const sent = await port.send(message(general.id, "**bold** and [docs](https://x.y/z)", { channel: { id: general.id, thread_id: parent.ts } }));
    expect(fake.botTexts(general.id, { thread: parent.ts })).toEqual(["*bold* and <https://x.y/z|docs>"]);
    expect(fake.shown(general.id, { thread: parent.ts }).find((shown) => shown.from_bot)!.ts).toBe(sent.messageId);
    expect(fake.callsOf("chat.postMessage")[0]!.params).toMatchObject({ channel: general.id, thread_ts: parent.ts });
    await expect(port.send(message(general.id, "## Done", { command: "edit_message", reply_to: sent.messageId }))).resolves.toEqual({ messageId: sent.messageId });
    expect(fake.botTexts(general.id, { thread: parent.ts })).toEqual(["*Done*"]);
    await expect(port.send(message(general.id, "", { command: "delete_message", reply_to: sent.messageId }))).resolves.toEqual({ messageId: sent.messageId });
    expect(fake.botTexts(general.id, { thread: parent.ts })).toEqual([]);
  });

  it("reactions by short name; already_reacted and no_reaction are success; unknown emoji are grey_question", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const said = fake.from(alice).message(general.id, "react to me");
    const { port } = portOf();
    const react = (text: string, command: "add_reaction" | "remove_reaction") => port.send(message(general.id, text, { command, reply_to: said.ts }));
    const shown = () => fake.shown(general.id).find((each) => each.ts === said.ts)!.reactions;
    await react("👀", "add_reaction");
    await react("👀", "add_reaction");
    await react("🚀", "add_reaction");
    expect(shown()).toEqual(["eyes", "grey_question"]);
    await react("👀", "remove_reaction");
    await expect(react("👀", "remove_reaction")).resolves.toEqual({ messageId: said.ts });
    expect(shown()).toEqual(["grey_question"]);
    expect(fake.callsOf("reactions.add").map((call) => call.error)).toEqual([undefined, "already_reacted", undefined]);
  });

  it("typing is done without a call; a topic, or a target or thread that is no ts, is refused without one", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    const { port } = portOf();
    await expect(port.send(message(general.id, "", { command: "typing" }))).resolves.toEqual({ messageId: "slack_done" });
    expect((await refusal(port.send(message(general.id, "topic", { command: "create_topic" })))).code).toBe("rejected");
    expect((await refusal(port.send(message(general.id, "x", { command: "edit_message", reply_to: "evt_1" })))).code).toBe("rejected");
    expect((await refusal(port.send(message(general.id, "x", { channel: { id: general.id, thread_id: "general-thread" } })))).message).toBe('send: "general-thread" is not a Slack thread ts');
    expect(fake.calls).toEqual([]);
  });

  it("create_topic for a message is the thread under it: its ts, without a call", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    const { port } = portOf();
    const post = await port.send(message(general.id, "🕐 [cron]: digest"));
    await expect(port.send(message(general.id, "digest", { command: "create_topic", quote_message_id: post.messageId }))).resolves.toEqual({ messageId: post.messageId });
    expect(fake.callsOf("chat.postMessage")).toHaveLength(1);
    expect(fake.calls).toHaveLength(1);
  });

  it("a 429 is rate_limited with Retry-After in ms, not retried by the client", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    const { port, records } = portOf();
    fake.failNext("chat.postMessage", { retryAfter: 2 });
    const error = await refusal(port.send(message(general.id, "later")));
    expect([error.code, error.retryAfterMs]).toEqual(["rate_limited", 2000]);
    expect(fake.callsOf("chat.postMessage")).toHaveLength(1);
    expect(logged(records, "slack refused a reply")).toMatchObject([{ reason: "rate_limited", method: "chat.postMessage", retryAfterMs: 2000 }]);
  });

  it("Slack's refusals are rejected with its error; 'maybe done' errors and 5xx are unknown", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    const { port } = portOf();
    const nowhere = await refusal(port.send(message("C0NOWHERE", "hi")));
    expect([nowhere.code, nowhere.message]).toEqual(["rejected", "Slack refused chat.postMessage: channel_not_found"]);
    fake.failNext("chat.postMessage", { error: "internal_error" });
    expect((await refusal(port.send(message(general.id, "hi")))).code).toBe("unknown");
    fake.failNext("chat.update", { httpStatus: 503 });
    expect((await refusal(port.send(message(general.id, "hi", { command: "edit_message", reply_to: "1.000001" })))).code).toBe("unknown");
  });

  it("a lost answer is unknown; Slack never reached is disconnected", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    const { port } = portOf({}, { callTimeoutMs: 300 });
    fake.delay("chat.postMessage", 2000);
    const lost = await refusal(port.send(message(general.id, "slow")));
    expect(lost.code).toBe("unknown");
    const gone = await FakeSlack.start();
    const root = gone.apiUrl;
    await gone.close();
    const { port: away } = portOf({ api_root: root });
    expect((await refusal(away.send(message(general.id, "anyone?")))).code).toBe("disconnected");
  });
});
