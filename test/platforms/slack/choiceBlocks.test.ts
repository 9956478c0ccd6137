import { describe, expect, it } from "vitest";
import { choiceMessage } from "../../../src/platforms/slack/choiceBlocks.js";
import { SendError } from "../../../src/wire/index.js";

const yesNo = [
  { label: "Allow once", data: "q1:allow_once" },
  { label: "Reject", data: "q1:reject" },
];

function refused(make: () => unknown): SendError {
  const error = (() => {
    try {
      make();
    } catch (err) {
      return err;
    }
    return undefined;
  })();
  expect(error).toBeInstanceOf(SendError);
  expect((error as SendError).code).toBe("rejected");
  return error as SendError;
}

describe("choiceMessage: a text and its buttons as Block Kit", () => {
  it("the text as a mrkdwn section, then one actions block: a button per choice, its data as action_id and value", () => {
    expect(choiceMessage("*Run* `ls`?", yesNo)).toEqual({
      text: "*Run* `ls`?",
      blocks: [
        { type: "section", text: { type: "mrkdwn", text: "*Run* `ls`?" } },
        {
          type: "actions",
          elements: [
            { type: "button", text: { type: "plain_text", text: "Allow once", emoji: true }, action_id: "q1:allow_once", value: "q1:allow_once" },
            { type: "button", text: { type: "plain_text", text: "Reject", emoji: true }, action_id: "q1:reject", value: "q1:reject" },
          ],
        },
      ],
    });
  });

  it("a text over 3000 characters is several sections in the one message, the buttons last; the fallback is cut", () => {
    const long = `${"a".repeat(2000)}\n${"b".repeat(2000)}`;
    const { text, blocks } = choiceMessage(long, yesNo);
    expect(blocks.map((block) => block.type)).toEqual(["section", "section", "actions"]);
    expect(Array.from(text!)).toHaveLength(3000);
    expect(text!.endsWith("…")).toBe(true);
  });

  it("an empty text is the buttons alone, with no fallback", () => {
    expect(choiceMessage("", yesNo)).toEqual({ blocks: [expect.objectContaining({ type: "actions" })] });
  });

  it("a label is cut to Slack's 75 characters; a blank one shows the data", () => {
    const { blocks } = choiceMessage("?", [
      { label: "x".repeat(90), data: "long" },
      { label: "  ", data: "blank" },
    ]);
    const labels = (blocks[1] as { elements: { text: { text: string } }[] }).elements.map((button) => button.text.text);
    expect(labels).toEqual([`${"x".repeat(74)}…`, "blank"]);
  });

  it("data outside OutboundChoice's rule, a repeated one, or more than 25 buttons are refused", () => {
    expect(refused(() => choiceMessage("?", [{ label: "Bad", data: "has space" }])).message).toBe('choices: "has space" is not 1 to 64 of [A-Za-z0-9:_-]');
    refused(() => choiceMessage("?", [{ label: "Long", data: "d".repeat(65) }]));
    refused(() => choiceMessage("?", [{ label: "Empty", data: "" }]));
    expect(refused(() => choiceMessage("?", [yesNo[0]!, yesNo[0]!])).message).toBe('choices: "q1:allow_once" is on two buttons');
    refused(() => choiceMessage("?", Array.from({ length: 26 }, (_, index) => ({ label: `${index}`, data: `c${index}` }))));
    expect(choiceMessage("?", Array.from({ length: 25 }, (_, index) => ({ label: `${index}`, data: `c${index}` }))).blocks).toHaveLength(2);
  });
});
