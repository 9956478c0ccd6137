import { describe, expect, it } from "vitest";
import { refusal, someConversations, useFakeSlack } from "./slackFixture.js";

// What a person sees of a message, as the fake reads it the way Slack's clients show it: mrkdwn
// formatting and control sequences, `mrkdwn: false`, plain_text blocks, escaping, link_names.

describe("fake Slack: what a person sees of a message", () => {
  const slack = useFakeSlack();

  /** Posts `text` (and more arguments) and answers what the channel shows of it. */
  async function seenPost(channel: string, args: Record<string, unknown>) {
    const { fake, web } = slack;
    const posted = await web.chat.postMessage({ channel, ...args } as never);
    return fake.seen(fake.shown(channel).find((message) => message.ts === posted.ts)!.message);
  }

  it("text is mrkdwn by default: marks at a word's edge format and disappear, code shows as written, controls become mentions and links", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const seen = await seenPost(general.id, { text: `*b* _i_ ~s~ \`*c*\` <http://x|a> <https://y> <@${alice.id}> <!channel> <#${general.id}> <!subteam^S1|@ops>` });
    expect(seen.text).toBe("b i s *c* a https://y @Ali @channel #general @ops");
    expect(seen.styles).toEqual([
      { style: "bold", text: "b" },
      { style: "italic", text: "i" },
      { style: "strike", text: "s" },
      { style: "code", text: "*c*" },
      { style: "link", text: "a" },
      { style: "link", text: "https://y" },
    ]);
    expect(seen.mentions).toEqual([alice.id, "channel", "subteam^S1"]);
    expect(seen.links).toEqual([
      { url: "http://x", label: "a" },
      { url: "https://y", label: "https://y" },
    ]);
  });

  it("marks inside a word, before a space or unclosed on the line stay as typed; nesting and pre blocks work; a raw > quotes, an escaped one does not", async () => {
    const { fake } = slack;
    const { general } = someConversations(fake);
    expect((await seenPost(general.id, { text: "6*7 is 2*21, snake_case_name, * not *, *open\nclose*" })).styles).toEqual([]);
    const nested = await seenPost(general.id, { text: "*bold _and italic_* then ```\nx *y* <@U1>\n```" });
    expect(nested.text).toBe("bold and italic then x *y* @U1");
    expect(nested.styles).toEqual([
      { style: "italic", text: "and italic" },
      { style: "bold", text: "bold and italic" },
      { style: "pre", text: "x *y* @U1" },
    ]);
    const quotes = await seenPost(general.id, { text: "> quoted\n&gt; typed &lt;b&gt; &amp;lt;" });
    expect(quotes.text).toBe("quoted\n> typed <b> &lt;");
    expect(quotes.styles).toEqual([{ style: "quote", text: "quoted" }]);
  });

  it("mrkdwn: false stays on the message and turns formatting off, not control sequences: only escaping keeps <@U…> from notifying", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const seen = await seenPost(general.id, { text: `*b* _i_ \`c\` > q <@${alice.id}> &lt;@${alice.id}&gt; &lt;!channel&gt; &amp;`, mrkdwn: false });
    expect(seen).toEqual({ text: `*b* _i_ \`c\` > q @Ali <@${alice.id}> <!channel> &`, styles: [], mentions: [alice.id], links: [], buttons: [] });
    expect(fake.shown(general.id)[0]!.message.mrkdwn).toBe(false);
    expect(await refusal(slack.web.chat.postMessage({ channel: general.id, text: "x", mrkdwn: "maybe" } as never))).toBe("invalid_arguments");
  });

  it("chat.update takes no mrkdwn: the text it sets is read as mrkdwn, whatever the post said", async () => {
    const { fake, web } = slack;
    const { general } = someConversations(fake);
    const posted = await web.chat.postMessage({ channel: general.id, text: "*a*", mrkdwn: false });
    const shown = () => fake.seen(fake.shown(general.id)[0]!.message);
    expect(shown().text).toBe("*a*");
    await web.apiCall("chat.update", { channel: general.id, ts: posted.ts, text: "*b*", mrkdwn: false });
    expect(shown()).toMatchObject({ text: "b", styles: [{ style: "bold", text: "b" }] });
  });

  it("a message with blocks shows its blocks, not its text: plain_text as typed (entities decoded, no control read), mrkdwn as mrkdwn, buttons apart", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const seen = await seenPost(general.id, {
      text: `fallback <@${alice.id}>`,
      blocks: [
        { type: "section", text: { type: "plain_text", text: `*b* \`c\` &lt;@${alice.id}&gt; <!here> &amp;amp;`, emoji: false } },
        { type: "divider" },
        { type: "section", text: { type: "mrkdwn", text: "_i_" } },
        { type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Yes &amp; go" }, action_id: "y" }] },
      ],
    });
    expect(seen).toEqual({ text: `*b* \`c\` <@${alice.id}> <!here> &amp;\ni`, styles: [{ style: "italic", text: "i" }], mentions: [], links: [], buttons: ["Yes & go"] });
  });

  it("a text object's emoji is for plain_text and verbatim for mrkdwn, both booleans (invalid_blocks)", async () => {
    const { fake, web } = slack;
    const { general } = someConversations(fake);
    const errorsOf = (text: unknown) => web.chat.postMessage({ channel: general.id, blocks: [{ type: "section", text }] as never }).then(() => [], (err: { data: { errors: string[] } }) => err.data.errors);
    expect(await errorsOf({ type: "mrkdwn", text: "x", emoji: true })).toEqual(["failed to match all allowed schemas [json-pointer:/blocks/0/text/emoji]"]);
    expect(await errorsOf({ type: "plain_text", text: "x", emoji: "no" })).toEqual(["failed to match all allowed schemas [json-pointer:/blocks/0/text/emoji]"]);
    expect(await errorsOf({ type: "plain_text", text: "x", verbatim: true })).toEqual(["failed to match all allowed schemas [json-pointer:/blocks/0/text/verbatim]"]);
    expect(await errorsOf({ type: "mrkdwn", text: "x", verbatim: true })).toEqual([]);
  });

  it("a typed @everyone or @name is text unless link_names (or parse: full) asks Slack to make it a mention", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    expect(await seenPost(general.id, { text: "@everyone ask @alice" })).toMatchObject({ text: "@everyone ask @alice", mentions: [] });
    expect(await seenPost(general.id, { text: "@everyone ask @alice", link_names: true })).toMatchObject({ text: "@everyone ask @Ali", mentions: ["everyone", alice.id] });
    expect(await seenPost(general.id, { text: "@here", parse: "full" })).toMatchObject({ mentions: ["here"] });
  });

  it("an ephemeral is seen as a message: its blocks, else its text as mrkdwn", async () => {
    const { fake, web } = slack;
    const { general, alice } = someConversations(fake);
    await web.chat.postEphemeral({ channel: general.id, user: alice.id, text: "*a*" });
    await web.chat.postEphemeral({ channel: general.id, user: alice.id, text: "*a*", blocks: [{ type: "section", text: { type: "plain_text", text: "*a*" } }] });
    expect(fake.ephemerals.map((each) => fake.seen(each).text)).toEqual(["a", "*a*"]);
  });
});
