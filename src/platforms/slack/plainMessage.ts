import type { SectionBlock } from "@slack/web-api";
import type { OutboundChoice } from "../../../operators/delivery/outboundMessage.js";
import { blockMessage, FALLBACK_TEXT_LIMIT, type ChoiceMessage } from "./choiceBlocks.js";
import { SECTION_TEXT_LIMIT, sectionTexts } from "./sectionTexts.js";
import { escapeSlackText } from "./slackText.js";

/** What `chat.postMessage` carries for a plain message: its text alone, or its blocks with buttons. */
export type PlainPost = ({ readonly text: string } | ChoiceMessage) & { readonly mrkdwn: false };

/**
 * A plain message's post (`OutboundMessage.plainText`: a question's, quoting the command an agent
 * wants to run, which the person must see as it will run). No Markdown is converted and `&`, `<`,
 * `>` go escaped (`escapeSlackText`), so `<@U…>` or `<!channel>` in it is shown and notifies nobody,
 * and `mrkdwn: false` turns off Slack's formatting of `text` (`*b*`, `_i_`, backticks). With
 * buttons it is Block Kit as `plainBlocks` makes it; `text` is then the notification fallback.
 */
export function plainPost(text: string, choices: readonly OutboundChoice[] = []): PlainPost {
  if (choices.length === 0) return { text: escapeSlackText(text), mrkdwn: false };
  return { ...plainBlocks(text, choices), mrkdwn: false };
}

/**
 * A plain message as Block Kit, for a post with buttons, an edit and a notice: its escaped text in
 * `plain_text` sections (Slack reads no formatting there; `emoji: false` keeps `:name:` as typed;
 * more than one when the escaped text is over a section's 3000 characters, cut as `sectionTexts`
 * cuts but adding no code fences), then the buttons when there are choices (`blockMessage`'s
 * rules). Block Kit because `chat.update` and `chat.postEphemeral` take no `mrkdwn` argument, and
 * Slack shows a message's blocks, not its `text`, whenever it has any. The fallback is the escaped
 * text, cut to 3000 characters but never inside an entity.
 */
export function plainBlocks(text: string, choices: readonly OutboundChoice[] = []): ChoiceMessage {
  const escaped = escapeSlackText(text);
  const sections = sectionTexts(escaped, SECTION_TEXT_LIMIT, { fences: false }).map((part): SectionBlock => ({ type: "section", text: { type: "plain_text", text: part, emoji: false } }));
  return blockMessage(sections, fallbackOf(escaped), choices);
}

/** An escaped text in at most `FALLBACK_TEXT_LIMIT` code points, ending in `…` when cut, never half an entity (`&am…`). */
function fallbackOf(escaped: string): string {
  const chars = Array.from(escaped);
  if (chars.length <= FALLBACK_TEXT_LIMIT) return escaped;
  return `${chars
    .slice(0, FALLBACK_TEXT_LIMIT - 1)
    .join("")
    .replace(/&[a-z]{0,3}$/, "")}…`;
}
