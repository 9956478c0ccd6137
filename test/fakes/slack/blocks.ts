import { SlackApiError } from "./slackApiError.js";

/**
 * Block Kit as `chat.postMessage` and `chat.update` check it, for the blocks an adapter sends: at most 50
 * blocks of a known type; `section` text 1–3000 characters, `plain_text` or `mrkdwn` (or up to 10 fields
 * of 2000), `header` plain text up to 150, `actions` 1–25 elements (a button: `plain_text` text of 1–75,
 * `action_id` up to 255, `value` up to 2000, `url` up to 3000, `style` `primary` or `danger`), `context`
 * 1–10 elements, `block_id` unique and up to 255, every `action_id` unique in the message; `markdown`
 * blocks' text together up to 12,000 (above it, `msg_blocks_too_long`); a text object's `emoji` only on
 * `plain_text`, `verbatim` only on `mrkdwn`, both booleans. Refusals are `invalid_blocks` with Slack's
 * `[json-pointer:…]` lines; JSON that is not an array, `invalid_blocks_format`. Characters are counted as
 * code points.
 */
export function checkBlocks(value: unknown, parsed: boolean): unknown[] {
  if (!parsed || !Array.isArray(value)) throw new SlackApiError("invalid_blocks_format");
  const problems: string[] = [];
  if (value.length > 50) problems.push("must be no more than 50 items [json-pointer:/blocks]");
  const blockIds = new Set<string>();
  const actionIds = new Set<string>();
  let markdownChars = 0;
  value.forEach((block: unknown, index) => {
    const at = `/blocks/${index}`;
    if (typeof block !== "object" || block === null) return problems.push(`must be an object [json-pointer:${at}]`);
    const { type, block_id: blockId } = block as { type?: unknown; block_id?: unknown };
    if (blockId !== undefined) {
      if (typeof blockId !== "string" || length(blockId) > 255) problems.push(`must be a string of at most 255 characters [json-pointer:${at}/block_id]`);
      else if (blockIds.has(blockId)) problems.push(`block_id must be unique [json-pointer:${at}/block_id]`);
      else blockIds.add(blockId);
    }
    const check = BLOCK_CHECKS[String(type)];
    if (!check) return problems.push(`failed to match all allowed schemas [json-pointer:${at}]`);
    const text = (block as { text?: unknown }).text;
    if (type === "markdown" && typeof text === "string") markdownChars += length(text);
    check(block as Record<string, unknown>, at, problems);
    const { elements: elementList, accessory } = block as { elements?: unknown; accessory?: unknown };
    const interactive = [...(Array.isArray(elementList) ? elementList.map((element: unknown, index) => [element, `${at}/elements/${index}`] as const) : []), [accessory, `${at}/accessory`] as const];
    for (const [element, where] of interactive) {
      const actionId = (element as { action_id?: unknown } | null | undefined)?.action_id;
      if (typeof actionId !== "string") continue;
      if (actionIds.has(actionId)) problems.push(`action_id must be unique in the message [json-pointer:${where}/action_id]`);
      actionIds.add(actionId);
    }
  });
  if (problems.length > 0) throw new SlackApiError("invalid_blocks", { errors: problems, response_metadata: { messages: problems.map((problem) => `[ERROR] ${problem}`) } });
  if (markdownChars > 12_000) throw new SlackApiError("msg_blocks_too_long");
  return value;
}

type BlockCheck = (block: Record<string, unknown>, at: string, problems: string[]) => void;

const BLOCK_CHECKS: Record<string, BlockCheck> = {
  section: (block, at, problems) => {
    if (block.text === undefined && block.fields === undefined) return void problems.push(`failed to match all allowed schemas [json-pointer:${at}]`);
    if (block.text !== undefined) textObject(block.text, `${at}/text`, 3000, problems, ["plain_text", "mrkdwn"]);
    if (block.fields !== undefined) {
      if (!Array.isArray(block.fields) || block.fields.length > 10) return void problems.push(`must be no more than 10 items [json-pointer:${at}/fields]`);
      block.fields.forEach((field: unknown, index) => textObject(field, `${at}/fields/${index}`, 2000, problems, ["plain_text", "mrkdwn"]));
    }
  },
  header: (block, at, problems) => textObject(block.text, `${at}/text`, 150, problems, ["plain_text"]),
  markdown: (block, at, problems) => {
    if (typeof block.text !== "string" || block.text === "") problems.push(`must be a non-empty string [json-pointer:${at}/text]`);
  },
  divider: () => {},
  context: (block, at, problems) => elements(block, at, 10, problems),
  actions: (block, at, problems) => {
    elements(block, at, 25, problems);
    (Array.isArray(block.elements) ? block.elements : []).forEach((element: unknown, index) => {
      const here = `${at}/elements/${index}`;
      if (typeof element !== "object" || element === null || !ACTION_ELEMENTS.has(String((element as { type?: unknown }).type))) return void problems.push(`failed to match all allowed schemas [json-pointer:${here}]`);
      const { type, action_id: actionId } = element as Record<string, unknown>;
      if (type === "button") button(element as Record<string, unknown>, here, problems);
      if (actionId !== undefined && (typeof actionId !== "string" || actionId === "" || length(actionId) > 255)) problems.push(`must be a string of 1 to 255 characters [json-pointer:${here}/action_id]`);
    });
  },
  rich_text: (block, at, problems) => elements(block, at, Infinity, problems),
  image: (block, at, problems) => {
    if (typeof block.alt_text !== "string") problems.push(`must provide alt_text [json-pointer:${at}/alt_text]`);
  },
};

/** The interactive elements an `actions` block takes. */
const ACTION_ELEMENTS: ReadonlySet<string> = new Set(["button", "checkboxes", "datepicker", "datetimepicker", "overflow", "radio_buttons", "rich_text_input", "static_select", "external_select", "users_select", "conversations_select", "channels_select", "multi_static_select", "multi_external_select", "multi_users_select", "multi_conversations_select", "multi_channels_select", "timepicker", "workflow_button"]);

/** A button: `plain_text` text of 1–75 characters, `value` up to 2000, `url` up to 3000, `style` `primary` or `danger`. */
function button(element: Record<string, unknown>, at: string, problems: string[]): void {
  textObject(element.text, `${at}/text`, 75, problems, ["plain_text"]);
  const { value, url, style } = element;
  if (value !== undefined && (typeof value !== "string" || length(value) > 2000)) problems.push(`must be a string of at most 2000 characters [json-pointer:${at}/value]`);
  if (url !== undefined && (typeof url !== "string" || length(url) > 3000)) problems.push(`must be a string of at most 3000 characters [json-pointer:${at}/url]`);
  if (style !== undefined && style !== "primary" && style !== "danger") problems.push(`must be one of primary, danger [json-pointer:${at}/style]`);
}

function textObject(value: unknown, at: string, max: number, problems: string[], types: string[]): void {
  const { type, text } = (value ?? {}) as { type?: unknown; text?: unknown };
  if (typeof value !== "object" || value === null || !types.includes(String(type)) || typeof text !== "string") {
    problems.push(`failed to match all allowed schemas [json-pointer:${at}]`);
    return;
  }
  if (text === "") problems.push(`must be more than 0 characters [json-pointer:${at}/text]`);
  if (length(text) > max) problems.push(`must be less than ${max + 1} characters [json-pointer:${at}/text]`);
  // The text object's page: `emoji` only on plain_text, `verbatim` only on mrkdwn, both booleans.
  const { emoji, verbatim } = value as { emoji?: unknown; verbatim?: unknown };
  if (emoji !== undefined && (type !== "plain_text" || typeof emoji !== "boolean")) problems.push(`failed to match all allowed schemas [json-pointer:${at}/emoji]`);
  if (verbatim !== undefined && (type !== "mrkdwn" || typeof verbatim !== "boolean")) problems.push(`failed to match all allowed schemas [json-pointer:${at}/verbatim]`);
}

function elements(block: Record<string, unknown>, at: string, max: number, problems: string[]): void {
  if (!Array.isArray(block.elements) || block.elements.length === 0) problems.push(`must provide elements [json-pointer:${at}/elements]`);
  else if (block.elements.length > max) problems.push(`must be no more than ${max} items [json-pointer:${at}/elements]`);
}

/** Characters as code points. */
export function length(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
