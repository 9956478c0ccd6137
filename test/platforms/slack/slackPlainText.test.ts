import { describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import { SLACK_MESSAGE_LIMIT } from "../../../src/platforms/slack/index.js";
import { someConversations, useFakeSlack } from "../../fakes/slack/slackFixture.js";
import type { FakeSlack, SlackUser } from "../../fakes/slack/index.js";
import { useSlackPorts } from "./slackTestConfig.js";

// OutboundMessage.plainText on the Slack port, against the fake's Web API over HTTP: a question's
// post, its edits (buttons toggled, removed, expired) and its notices show every `*`, `_`,
// backtick, Markdown link, `&` and `<…>` as the agent wrote them, and notify nobody; the fake reads
// each message as a Slack client shows it (`fake.seen`).

const slack = useFakeSlack();
const portOf = useSlackPorts(() => slack.fake);

/** What the codex-acp test saw as `$((67))` on Telegram: the `*`s paired across the command. */
const COMMAND = "Allow `echo $((6*7))`?\n\nkind: execute *risky*";
const CHOICES = [
  { label: "Yes, proceed", data: "q:7:0" },
  { label: "No", data: "q:7:1" },
];

/** Markdown, mrkdwn and Slack markup that would format, link or notify; `mention` is a real member's. */
function quoted(mention: SlackUser): string {
  return `Run \`rm -rf build\` as *root* in _x_ or **y**? See [a](http://x) & <@${mention.id}> <@U1> <!channel> <!here|here> @everyone &amp; ~z~\n> not a quote`;
}

function message(channel: string, text: string, extra: Partial<OutboundMessage> = {}): OutboundMessage {
  return { reply_to: "", platform: "slack", channel: { id: channel }, content: { type: "text", text }, plainText: true, ...extra };
}

/** What a person sees of the message `ts` in `channel` now. */
function seenOf(fake: FakeSlack, channel: string, ts: string, thread?: string) {
  const shown = fake.shown(channel, thread === undefined ? {} : { thread }).find((each) => each.ts === ts);
  if (shown === undefined) throw new Error(`no message ${ts} in ${channel}`);
  return fake.seen(shown.message);
}

/** Exactly the text, unformatted, notifying nobody, linking nothing, with these buttons. */
const exactly = (text: string, buttons: readonly string[] = []) => ({ text, styles: [], mentions: [], links: [], buttons });

describe("SlackPort.send: plainText", () => {
  it("a post without buttons: the text escaped with mrkdwn: false, shown character for character; the same text without plainText is formatted and notifies", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const { port } = portOf();
    const text = quoted(alice);
    const plain = await port.send(message(general.id, text));
    const command = await port.send(message(general.id, COMMAND));
    const markdown = await port.send(message(general.id, text, { plainText: undefined }));
    expect(fake.callsOf("chat.postMessage")[0]!.params).toEqual({ channel: general.id, text: text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"), mrkdwn: "false" });
    expect(seenOf(fake, general.id, plain.messageId)).toEqual(exactly(text));
    expect(seenOf(fake, general.id, command.messageId)).toEqual(exactly(COMMAND));
    const formatted = seenOf(fake, general.id, markdown.messageId);
    expect(formatted.text).not.toBe(text);
    expect(formatted.mentions).toEqual([alice.id, "U1", "channel", "here"]);
    expect(formatted.styles.map((each) => each.style)).toEqual(expect.arrayContaining(["code", "bold", "italic", "link"]));
  });

  it("a post with buttons, in its thread: plain_text sections and the buttons; the fallback is the escaped text", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const parent = fake.from(alice).message(general.id, "@turnstream clean up");
    const { port } = portOf();
    const text = `${quoted(alice)}\n\n${COMMAND}`;
    const sent = await port.send(message(general.id, text, { channel: { id: general.id, thread_id: parent.ts }, choices: CHOICES }));
    expect(seenOf(fake, general.id, sent.messageId, parent.ts)).toEqual(exactly(text, ["Yes, proceed", "No"]));
    const params = fake.callsOf("chat.postMessage")[0]!.params;
    expect(params).toMatchObject({ channel: general.id, thread_ts: parent.ts, mrkdwn: "false", text: text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;") });
    expect(JSON.parse(params.blocks as string)).toMatchObject([{ type: "section", text: { type: "plain_text", emoji: false } }, { type: "actions" }]);
  });

  it("a question's edits: buttons toggled, then removed when answered, then the expired note — each shown exactly, with no mrkdwn argument chat.update lacks", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const { port } = portOf();
    const sent = await port.send(message(general.id, COMMAND, { choices: CHOICES }));
    const edit = (text: string, choices?: OutboundMessage["choices"]) => port.send(message(general.id, text, { command: "edit_message", reply_to: sent.messageId, ...(choices === undefined ? {} : { choices }) }));
    await expect(edit(`${COMMAND}\n\n✓ *Yes* so far`, [CHOICES[1]!])).resolves.toEqual({ messageId: sent.messageId });
    expect(seenOf(fake, general.id, sent.messageId)).toEqual(exactly(`${COMMAND}\n\n✓ *Yes* so far`, ["No"]));
    const answered = `${COMMAND}\n\n→ q:7:0 (<@${alice.id}> & _Ali_)`;
    await edit(answered, []);
    expect(seenOf(fake, general.id, sent.messageId)).toEqual(exactly(answered));
    await edit("This question expired: its turn's worker stopped. *Nothing* ran.", []);
    expect(seenOf(fake, general.id, sent.messageId)).toEqual(exactly("This question expired: its turn's worker stopped. *Nothing* ran."));
    for (const call of fake.callsOf("chat.update")) expect(call.params).not.toHaveProperty("mrkdwn");
    expect(fake.callsOf("chat.update").map((call) => call.ok)).toEqual([true, true, true]);
  });

  it("an edit without choices shows its text as written too: the plain_text sections replace the blocks, buttons included", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    const { port } = portOf();
    const posted = await port.send(message(general.id, "Run `ls`?"));
    await port.send(message(general.id, "Run `ls *`? _still_ waiting", { command: "edit_message", reply_to: posted.messageId }));
    expect(seenOf(fake, general.id, posted.messageId)).toEqual(exactly("Run `ls *`? _still_ waiting"));
    const asked = await port.send(message(general.id, COMMAND, { choices: CHOICES }));
    await port.send(message(general.id, `${COMMAND} (late)`, { command: "edit_message", reply_to: asked.messageId }));
    expect(seenOf(fake, general.id, asked.messageId)).toEqual(exactly(`${COMMAND} (late)`));
  });

  it("a text as long as a message may be, its escapes over several sections: one message, shown exactly, in plain text and with buttons", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    const { port } = portOf();
    expect(port.messageLimit("slack")).toBe(SLACK_MESSAGE_LIMIT);
    const line = "if a && b <c> then *d*";
    const text = Array.from({ length: Math.floor(SLACK_MESSAGE_LIMIT / (line.length + 1)) }, () => line).join("\n");
    const plain = await port.send(message(general.id, text));
    const buttons = await port.send(message(general.id, text, { choices: CHOICES }));
    expect(seenOf(fake, general.id, plain.messageId)).toEqual(exactly(text));
    expect(seenOf(fake, general.id, buttons.messageId)).toEqual(exactly(text, ["Yes, proceed", "No"]));
    const blocks = JSON.parse(fake.callsOf("chat.postMessage")[1]!.params.blocks as string) as { type: string }[];
    expect(blocks.filter((block) => block.type === "section").length).toBeGreaterThan(1);
    await port.send(message(general.id, `${text.slice(0, -10)}`, { command: "edit_message", reply_to: buttons.messageId, choices: [] }));
    expect(seenOf(fake, general.id, buttons.messageId)).toEqual(exactly(text.slice(0, -10)));
  });
});

describe("SlackPort answer_tap: plainText", () => {
  it("the notice is plain_text blocks in an ephemeral: the person who tapped sees it exactly; without plainText it is mrkdwn", async () => {
    const { fake } = slack;
    const { general, alice, bob } = someConversations(fake);
    const parent = fake.from(alice).message(general.id, "@turnstream deploy");
    const { port } = portOf();
    const tap = { command: "answer_tap" as const, reply_to: `${general.id}:${bob.id}:${parent.ts}` };
    const notice = `Only *Ali* (<@${alice.id}>) can answer _this_ & <!channel>.`;
    await expect(port.send(message(general.id, notice, tap))).resolves.toEqual({ messageId: "" });
    await port.send(message(general.id, notice, { ...tap, plainText: undefined }));
    const [plain, markdown] = fake.ephemerals;
    expect(plain).toMatchObject({ user: bob.id, thread_ts: parent.ts });
    expect(fake.seen(plain!)).toEqual(exactly(notice));
    expect(fake.seen(markdown!).mentions).toEqual([alice.id, "channel"]);
  });
});
