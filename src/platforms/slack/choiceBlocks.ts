import type { ActionsBlock, Button, KnownBlock, SectionBlock } from "@slack/web-api";
import type { OutboundChoice } from "../../../operators/delivery/outboundMessage.js";
import { SendError } from "../../wire/index.js";
import { sectionTexts } from "./sectionTexts.js";

/** `OutboundChoice.data`'s rule: at most 64 bytes of `[A-Za-z0-9:_-]`; also what a tap's data must be. */
export const CHOICE_DATA = /^[A-Za-z0-9:_-]{1,64}$/;

/** Block Kit's bounds: buttons in an `actions` block, characters of a button's text, blocks in a message. */
export const BUTTONS_PER_ACTIONS = 25;
export const BUTTON_TEXT_LIMIT = 75;
export const BLOCKS_PER_MESSAGE = 50;

/**
 * The notification text beside blocks, in characters: Slack shows it only in notifications and
 * where blocks cannot be shown, and `chat.update` refuses a text over 4000 (`msg_too_long`).
 */
export const FALLBACK_TEXT_LIMIT = 3000;

/** What a `chat.postMessage` or `chat.update` carries for a message with buttons. */
export interface ChoiceMessage {
  /** The notification fallback: the text, cut to `FALLBACK_TEXT_LIMIT`; absent when empty. */
  readonly text?: string;
  readonly blocks: KnownBlock[];
}

/**
 * A message's mrkdwn text and its buttons as Block Kit: the text as `section` blocks (mrkdwn; more
 * than one when it is longer than a section's 3000 characters, all in the one message, so the
 * message keeps one `ts` for the edit that later removes the buttons), then one `actions` block
 * whose buttons carry their `data` as `action_id` and `value`. A label is cut to Slack's 75
 * characters (a blank one shows the data). Refused without a call (`rejected`): data that breaks
 * `OutboundChoice`'s rule or repeats (Slack needs unique action ids), more than 25 buttons, or a
 * text too long for 50 blocks.
 */
export function choiceMessage(mrkdwn: string, choices: readonly OutboundChoice[]): ChoiceMessage {
  const sections = sectionTexts(mrkdwn).map((text): SectionBlock => ({ type: "section", text: { type: "mrkdwn", text } }));
  return blockMessage(sections, cut(mrkdwn, FALLBACK_TEXT_LIMIT), choices);
}

/**
 * Text sections, then the buttons' `actions` block when there are choices (`choiceMessage`'s
 * rules), with `fallback` as the notification text unless it is blank.
 */
export function blockMessage(sections: readonly SectionBlock[], fallback: string, choices: readonly OutboundChoice[]): ChoiceMessage {
  const room = choices.length > 0 ? BLOCKS_PER_MESSAGE - 1 : BLOCKS_PER_MESSAGE;
  if (sections.length > room) throw new SendError("rejected", `choices: the text needs ${sections.length} sections; Slack allows ${room}${choices.length > 0 ? " beside the buttons" : ""}`);
  const blocks: KnownBlock[] = [...sections];
  if (choices.length > 0) blocks.push(actionsBlock(choices));
  return fallback.trim() === "" ? { blocks } : { text: fallback, blocks };
}

function actionsBlock(choices: readonly OutboundChoice[]): ActionsBlock {
  if (choices.length > BUTTONS_PER_ACTIONS) throw new SendError("rejected", `choices: ${choices.length} buttons; Slack shows at most ${BUTTONS_PER_ACTIONS} in a row`);
  const seen = new Set<string>();
  const elements = choices.map((choice): Button => {
    if (typeof choice.data !== "string" || !CHOICE_DATA.test(choice.data)) throw new SendError("rejected", `choices: ${JSON.stringify(String(choice.data).slice(0, 70))} is not 1 to 64 of [A-Za-z0-9:_-]`);
    if (seen.has(choice.data)) throw new SendError("rejected", `choices: ${JSON.stringify(choice.data)} is on two buttons`);
    seen.add(choice.data);
    const label = typeof choice.label === "string" && choice.label.trim() !== "" ? choice.label : choice.data;
    return { type: "button", text: { type: "plain_text", text: cut(label, BUTTON_TEXT_LIMIT), emoji: true }, action_id: choice.data, value: choice.data };
  });
  return { type: "actions", elements };
}

/** `text` in at most `limit` code points, ending in `…` when cut. */
function cut(text: string, limit: number): string {
  const chars = Array.from(text);
  return chars.length <= limit ? text : `${chars.slice(0, limit - 1).join("")}…`;
}
