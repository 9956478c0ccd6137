import type { InlineKeyboardMarkup } from "grammy/types";
import type { OutboundChoice } from "../../../operators/delivery/outboundMessage.js";
import { SendError } from "../../wire/index.js";
import { TAP_DATA_MAX_BYTES } from "./updateEvent.js";

/**
 * A message's buttons as Telegram's inline keyboard: one row, each choice a callback button whose
 * `callback_data` comes back in the tap. `[]` is an empty keyboard, which an edit sends to take the
 * buttons away. A choice Telegram would refuse (an empty label, data empty or over 64 bytes) is
 * rejected without a call, naming the choice by its place, never its text.
 */
export function inlineKeyboardOf(choices: readonly OutboundChoice[]): InlineKeyboardMarkup {
  choices.forEach(({ label, data }, index) => {
    const bytes = Buffer.byteLength(data, "utf8");
    if (label.trim() === "" || bytes === 0 || bytes > TAP_DATA_MAX_BYTES) {
      throw new SendError("rejected", `choice ${index + 1}: a button needs a label and 1 to ${TAP_DATA_MAX_BYTES} bytes of data`);
    }
  });
  return { inline_keyboard: choices.length === 0 ? [] : [choices.map(({ label, data }) => ({ text: label, callback_data: data }))] };
}

/** Whether a keyboard shows any button (an empty one is how an edit removes them). */
export function hasButtons(keyboard: InlineKeyboardMarkup): boolean {
  return keyboard.inline_keyboard.some((row) => row.length > 0);
}
