import { badLength, choices, isObject, lengthOf, maxLength, notBoolean, notList, notObject, notString, required, type FormErrors } from "./formErrors.js";

/** Component types the fake reads (docs: Components › Component Types). */
export const COMPONENT_TYPE = { ACTION_ROW: 1, BUTTON: 2, STRING_SELECT: 3, USER_SELECT: 5, ROLE_SELECT: 6, MENTIONABLE_SELECT: 7, CHANNEL_SELECT: 8 } as const;
/** Button styles (docs: Components › Button › Button Styles). */
export const BUTTON_STYLE = { PRIMARY: 1, SECONDARY: 2, SUCCESS: 3, DANGER: 4, LINK: 5, PREMIUM: 6 } as const;

const SELECT_TYPES: ReadonlySet<number> = new Set([3, 5, 6, 7, 8]);
/** At most 5 action rows a message, 5 buttons a row (docs: Action Row). */
export const ROWS_PER_MESSAGE = 5;
export const BUTTONS_PER_ROW = 5;
export const BUTTON_LABEL_LIMIT = 80;
export const CUSTOM_ID_LIMIT = 100;
const URL_LIMIT = 512;

/**
 * A message's `components` as Discord documents the legacy layout (the fake does not model
 * Components V2): up to 5 action rows (type 1), each holding 1–5 buttons or exactly one select
 * menu. A button: `style` 1–5; styles 1–4 need a `custom_id` (1–100 characters) and no `url`; a
 * LINK (5) needs a `url` and no `custom_id`; a label of at most 80 characters or an emoji;
 * `disabled` a boolean. A select: a `custom_id` of 1–100 characters. Every `custom_id` unique in
 * the message. `null` clears them (an edit's `components: []` or `null`: none left).
 *
 * The docs give the bounds; the codes of most refusals below are the fake's wording, since the
 * docs do not list what Discord answers for each (BASE_TYPE_* are Discord's).
 */
export function readComponents(value: unknown, errors: FormErrors): unknown[] | undefined {
  if (value === undefined) return undefined;
  if (value === null) return [];
  if (!Array.isArray(value)) {
    errors.add(["components"], notList);
    return undefined;
  }
  if (value.length > ROWS_PER_MESSAGE) errors.add(["components"], maxLength(ROWS_PER_MESSAGE));
  const customIds = new Set<string>();
  value.forEach((row, index) => readRow(row, ["components", index], errors, customIds));
  return value;
}

type Path = readonly (string | number)[];

function readRow(row: unknown, path: Path, errors: FormErrors, customIds: Set<string>): void {
  if (!isObject(row)) return errors.add(path, notObject);
  if (row.type !== COMPONENT_TYPE.ACTION_ROW) return errors.add([...path, "type"], { code: "UNION_TYPE_CHOICES", message: `Value of field "type" must be one of (${COMPONENT_TYPE.ACTION_ROW},).` });
  const children = row.components;
  if (children === undefined) return errors.add([...path, "components"], required);
  if (!Array.isArray(children)) return errors.add([...path, "components"], notList);
  if (children.length < 1 || children.length > BUTTONS_PER_ROW) errors.add([...path, "components"], badLength(1, BUTTONS_PER_ROW));
  const selects = children.filter((child) => isObject(child) && SELECT_TYPES.has(child.type as number)).length;
  if (selects > 0 && children.length > 1) errors.add([...path, "components"], { code: "COMPONENT_LAYOUT_WIDTH_EXCEEDED", message: "A select menu takes a whole action row" });
  children.forEach((child, index) => readChild(child, [...path, "components", index], errors, customIds));
}

function readChild(child: unknown, path: Path, errors: FormErrors, customIds: Set<string>): void {
  if (!isObject(child)) return errors.add(path, notObject);
  if (child.type === COMPONENT_TYPE.BUTTON) return readButton(child, path, errors, customIds);
  if (SELECT_TYPES.has(child.type as number)) return readCustomId(child.custom_id, [...path, "custom_id"], errors, customIds);
  errors.add([...path, "type"], choices([COMPONENT_TYPE.BUTTON, ...SELECT_TYPES]));
}

function readButton(button: Record<string, unknown>, path: Path, errors: FormErrors, customIds: Set<string>): void {
  const styles = Object.values(BUTTON_STYLE) as number[];
  if (button.style === undefined) errors.add([...path, "style"], required);
  else if (!styles.includes(button.style as number)) errors.add([...path, "style"], choices(styles));
  else if (button.style === BUTTON_STYLE.PREMIUM) errors.add([...path, "style"], { code: "BUTTON_COMPONENT_PREMIUM_UNSUPPORTED", message: "fake Discord does not model premium buttons" });
  else if (button.style === BUTTON_STYLE.LINK) {
    if (button.custom_id !== undefined) errors.add([...path, "custom_id"], { code: "BUTTON_COMPONENT_CUSTOM_ID_WITH_URL", message: "A link button cannot have a custom id" });
    if (typeof button.url !== "string" || !/^(https?|discord):\/\//.test(button.url)) errors.add([...path, "url"], button.url === undefined ? required : { code: "URL_TYPE_INVALID_URL", message: "Not a well formed URL." });
    else if (lengthOf(button.url) > URL_LIMIT) errors.add([...path, "url"], maxLength(URL_LIMIT));
  } else {
    if (button.url !== undefined) errors.add([...path, "url"], { code: "BUTTON_COMPONENT_URL_WITH_CUSTOM_ID", message: "Only a link button has a url" });
    readCustomId(button.custom_id, [...path, "custom_id"], errors, customIds);
  }
  if (button.label !== undefined && button.label !== null) {
    if (typeof button.label !== "string") errors.add([...path, "label"], notString(button.label));
    else if (lengthOf(button.label) > BUTTON_LABEL_LIMIT) errors.add([...path, "label"], maxLength(BUTTON_LABEL_LIMIT));
  }
  const labelled = typeof button.label === "string" && button.label !== "";
  if (!labelled && !isObject(button.emoji)) errors.add([...path, "label"], { code: "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED", message: "A button needs a label or an emoji" });
  if (button.disabled !== undefined && typeof button.disabled !== "boolean") errors.add([...path, "disabled"], notBoolean);
}

function readCustomId(value: unknown, path: Path, errors: FormErrors, customIds: Set<string>): void {
  if (value === undefined) return errors.add(path, required);
  if (typeof value !== "string") return errors.add(path, notString(value));
  const length = lengthOf(value);
  if (length < 1 || length > CUSTOM_ID_LIMIT) return errors.add(path, badLength(1, CUSTOM_ID_LIMIT));
  if (customIds.has(value)) return errors.add(path, { code: "COMPONENT_CUSTOM_ID_DUPLICATED", message: "Component custom id cannot be duplicated" });
  customIds.add(value);
}

/** A component of a stored message by `custom_id`, with its type and (a button's) style and disabled flag. */
export function findComponent(components: unknown, customId: string): { readonly type: number; readonly style: unknown; readonly disabled: boolean } | undefined {
  if (!Array.isArray(components)) return undefined;
  for (const component of components as Record<string, unknown>[]) {
    if (!isObject(component)) continue;
    if (component.custom_id === customId && typeof component.type === "number") return { type: component.type, style: component.style, disabled: component.disabled === true };
    const nested = findComponent(component.components, customId);
    if (nested) return nested;
  }
  return undefined;
}
