import { describe, expect, it } from "vitest";
import { plainBlocks, plainPost } from "../../../src/platforms/slack/plainMessage.js";
import { SendError } from "../../../src/wire/index.js";

const yesNo = [
  { label: "Yes, proceed", data: "q:7:0" },
  { label: "No", data: "q:7:1" },
];

/** Text that is nothing but Slack's three entities and other characters: no raw `&`, `<`, `>`. */
const ESCAPED = /^(?:[^&<>]|&(?:amp|lt|gt);)*$/s;

describe("plainPost: a plain message's chat.postMessage content", () => {
  it("without buttons: the text escaped, nothing converted, mrkdwn: false", () => {
    const text = "Run `rm -rf build` as **root** in _x_? [a](http://x) <@U1> <!channel> @everyone & &amp;";
    const escaped = "Run `rm -rf build` as **root** in _x_? [a](http://x) &lt;@U1&gt; &lt;!channel&gt; @everyone &amp; &amp;amp;";
    expect(plainPost(text)).toEqual({ text: escaped, mrkdwn: false });
    expect(plainPost(text, [])).toEqual({ text: escaped, mrkdwn: false });
  });

  it("with buttons: plain_text sections (emoji codes as typed), the buttons, the escaped text as the fallback, mrkdwn: false", () => {
    expect(plainPost("Allow `echo $((6*7))`? <b>", yesNo)).toEqual({
      text: "Allow `echo $((6*7))`? &lt;b&gt;",
      blocks: [
        { type: "section", text: { type: "plain_text", text: "Allow `echo $((6*7))`? &lt;b&gt;", emoji: false } },
        {
          type: "actions",
          elements: [
            { type: "button", text: { type: "plain_text", text: "Yes, proceed", emoji: true }, action_id: "q:7:0", value: "q:7:0" },
            { type: "button", text: { type: "plain_text", text: "No", emoji: true }, action_id: "q:7:1", value: "q:7:1" },
          ],
        },
      ],
      mrkdwn: false,
    });
  });
});

describe("plainBlocks: a plain message as Block Kit (edits, notices)", () => {
  it("the sections alone without choices, no fences added to a code block; with choices the buttons after them", () => {
    const text = "```\nls *\n```";
    expect(plainBlocks(text)).toEqual({ text, blocks: [{ type: "section", text: { type: "plain_text", text, emoji: false } }] });
    expect(plainBlocks(text, []).blocks).toHaveLength(1);
    expect(plainBlocks(text, yesNo).blocks.map((block) => block.type)).toEqual(["section", "actions"]);
  });

  it("a text whose escapes pass a section's 3000 characters takes several sections, each within it, none cut in an entity; the fallback is cut before an entity", () => {
    const lines = Array.from({ length: 300 }, (_, index) => `${index}: a && b <c> d`);
    const text = lines.join("\n");
    const { text: fallback, blocks } = plainBlocks(text, yesNo);
    const sections = blocks.slice(0, -1) as { text: { type: string; text: string } }[];
    expect(sections.length).toBeGreaterThan(1);
    for (const section of sections) {
      expect(section.text.type).toBe("plain_text");
      expect(Array.from(section.text.text).length).toBeLessThanOrEqual(3000);
      expect(section.text.text).toMatch(ESCAPED);
    }
    expect(sections.map((section) => section.text.text).join("\n")).toBe(text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"));
    expect(Array.from(fallback!).length).toBeLessThanOrEqual(3000);
    expect(fallback!.slice(0, -1)).toMatch(ESCAPED);
    expect(fallback!.endsWith("…")).toBe(true);
    const cut = plainBlocks("&".repeat(1000)).text!;
    expect(Array.from(cut).length).toBeLessThanOrEqual(3000);
    expect(cut).toMatch(/^(?:&amp;)+…$/);
  });

  it("a text too long for 50 blocks is refused without a call", () => {
    expect(() => plainBlocks("<".repeat(40_000), yesNo)).toThrow(SendError);
    expect(() => plainBlocks("<".repeat(40_000))).toThrow(/Slack allows 50$/);
  });
});
