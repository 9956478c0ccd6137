import { ButtonStyle, ComponentType, type APIActionRowComponent, type APIButtonComponentWithCustomId } from "@discordjs/core";
import type { OutboundChoice, OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import { SendError } from "../../wire/index.js";

/** Discord's bounds on a row of buttons (docs: Components › Action Row, Button). */
export const BUTTONS_PER_ROW = 5;
export const BUTTON_LABEL_LIMIT = 80;
export const CUSTOM_ID_LIMIT = 100;

export type ButtonRow = APIActionRowComponent<APIButtonComponentWithCustomId>;

/**
 * What a send or an edit says of the message's components: `undefined` leaves them (an edit
 * without `choices`), `[]` removes them, else one action row with a grey (SECONDARY) button per
 * choice, its `custom_id` the choice's data. Grey for every option: a question's answers are
 * equals, none the recommended one.
 */
export function componentsOf(message: Pick<OutboundMessage, "choices" | "command">): ButtonRow[] | undefined {
  const { choices } = message;
  if (choices === undefined) return undefined;
  return choices.length === 0 ? [] : [buttonRow(choices, message.command ?? "send")];
}

/**
 * One action row of buttons; what Discord would refuse is refused here without a call: more than
 * five, an empty label, a `custom_id` empty, over 100 characters or repeated in the message. A
 * label over 80 characters is cut (the broker's are at most 64).
 */
export function buttonRow(choices: readonly OutboundChoice[], what: string): ButtonRow {
  if (choices.length > BUTTONS_PER_ROW) throw new SendError("rejected", `${what}: ${choices.length} buttons; Discord allows ${BUTTONS_PER_ROW} in a row`);
  const seen = new Set<string>();
  const buttons = choices.map((choice, index): APIButtonComponentWithCustomId => {
    const label = cutLabel(choice.label);
    const length = [...choice.data].length;
    if (label === "") throw new SendError("rejected", `${what}: button ${index + 1} has no label`);
    if (length === 0 || length > CUSTOM_ID_LIMIT) throw new SendError("rejected", `${what}: button ${index + 1}'s data is ${length} characters; Discord takes 1 to ${CUSTOM_ID_LIMIT}`);
    if (seen.has(choice.data)) throw new SendError("rejected", `${what}: button ${index + 1}'s data repeats another's; Discord needs each unique`);
    seen.add(choice.data);
    return { type: ComponentType.Button, style: ButtonStyle.Secondary, label, custom_id: choice.data };
  });
  return { type: ComponentType.ActionRow, components: buttons };
}

function cutLabel(label: string): string {
  const points = [...label.trim()];
  return points.length <= BUTTON_LABEL_LIMIT ? points.join("") : `${points.slice(0, BUTTON_LABEL_LIMIT - 1).join("")}…`;
}
