import type { FieldError } from "./discordApiError.js";
import { badLength, choices, isObject, lengthOf, maxLength, notBoolean, notList, notObject, notString, required, type FormErrors } from "./formErrors.js";

/** Application command types a bot registers (docs: Interactions › Application Commands). */
export const COMMAND_TYPE = { CHAT_INPUT: 1, USER: 2, MESSAGE: 3 } as const;
/** Option types, SUB_COMMAND (1) to ATTACHMENT (11). */
export const OPTION_TYPE = { SUB_COMMAND: 1, SUB_COMMAND_GROUP: 2, STRING: 3, INTEGER: 4, BOOLEAN: 5, USER: 6, CHANNEL: 7, ROLE: 8, MENTIONABLE: 9, NUMBER: 10, ATTACHMENT: 11 } as const;

/** The docs' rule for CHAT_INPUT command and option names, with the unicode flag. */
const CHAT_INPUT_NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
/** How many commands of each type an app may have (docs: Registering a Command). */
const COMMAND_LIMITS: Readonly<Record<number, number>> = { 1: 100, 2: 15, 3: 15 };
const SIZE_LIMIT = 8000;

// Codes as Discord answers them; the docs give APPLICATION_COMMAND_TOO_LARGE's wording.
const invalidName: FieldError = { code: "APPLICATION_COMMAND_INVALID_NAME", message: "Command name is invalid" };
const duplicateName: FieldError = { code: "APPLICATION_COMMANDS_DUPLICATE_NAME", message: "Application command names must be unique" };
const requiredFirst: FieldError = { code: "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID", message: "Required options must be placed before non-required options" };
const duplicateOption: FieldError = { code: "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME", message: "Option names must be unique" };
const autocompleteWithChoices: FieldError = { code: "APPLICATION_COMMAND_OPTION_AUTOCOMPLETE_WITH_CHOICES", message: "Autocomplete cannot be set when choices are present" };
const tooLarge: FieldError = { code: "APPLICATION_COMMAND_TOO_LARGE", message: `Command exceeds maximum size (${SIZE_LIMIT})` };

/** A command as a bulk overwrite gives it, checked; Discord adds ids and the rest. */
export interface CommandInput {
  readonly type: number;
  readonly name: string;
  readonly description: string;
  readonly options: Record<string, unknown>[] | undefined;
  readonly raw: Record<string, unknown>;
}

/**
 * Checks a bulk overwrite's body as Discord does: a list; each command's type, name (CHAT_INPUT: the docs'
 * regex, lower case where a letter has a lower case), description 1–100, ≤ 25 options with required ones
 * first and unique names, choices ≤ 25 and not with autocomplete, 8000 characters in all; names unique per
 * type; at most 100 slash, 15 user and 15 message commands.
 */
export function readCommands(body: unknown, errors: FormErrors): CommandInput[] {
  if (!Array.isArray(body)) {
    errors.add([], notList);
    return [];
  }
  const commands = body.flatMap((item, index) => {
    const command = readCommand(item, [index], errors);
    return command ? [command] : [];
  });
  const seen = new Set<string>();
  for (const command of commands) {
    const key = `${command.type}:${command.name}`;
    if (seen.has(key)) errors.add([], duplicateName);
    seen.add(key);
  }
  for (const [type, limit] of Object.entries(COMMAND_LIMITS)) {
    if (commands.filter((command) => command.type === Number(type)).length > limit) errors.add([], maxLength(limit));
  }
  return commands;
}

function readCommand(item: unknown, path: (string | number)[], errors: FormErrors): CommandInput | undefined {
  if (!isObject(item)) {
    errors.add(path, notObject);
    return undefined;
  }
  const type = item.type ?? COMMAND_TYPE.CHAT_INPUT;
  if (!Object.values(COMMAND_TYPE).includes(type as 1)) errors.add([...path, "type"], choices(Object.values(COMMAND_TYPE)));
  const slash = type === COMMAND_TYPE.CHAT_INPUT;
  const name = readName(item.name, [...path, "name"], slash, errors);
  let description = "";
  if (slash) description = readText(item.description, [...path, "description"], 100, errors) ?? "";
  let options: Record<string, unknown>[] | undefined;
  if (item.options !== undefined && item.options !== null) {
    if (!slash) errors.add([...path, "options"], { code: "APPLICATION_COMMAND_OPTIONS_INVALID", message: "Only CHAT_INPUT commands may have options" });
    else options = readOptions(item.options, [...path, "options"], 0, errors);
  }
  for (const flag of ["nsfw", "dm_permission"] as const) {
    if (item[flag] !== undefined && item[flag] !== null && typeof item[flag] !== "boolean") errors.add([...path, flag], notBoolean);
  }
  if (textOf(item).reduce((total, text) => total + lengthOf(text), 0) > SIZE_LIMIT) errors.add(path, tooLarge);
  return name === undefined ? undefined : { type: type as number, name, description, options, raw: item };
}

function readOptions(value: unknown, path: (string | number)[], depth: number, errors: FormErrors): Record<string, unknown>[] | undefined {
  if (!Array.isArray(value)) {
    errors.add(path, notList);
    return undefined;
  }
  if (value.length > 25) errors.add(path, maxLength(25));
  const options = value.filter(isObject);
  value.forEach((option, index) => readOption(option, [...path, index], depth, errors));
  const names = options.map((option) => option.name);
  if (new Set(names).size !== names.length) errors.add(path, duplicateOption);
  const firstOptional = options.findIndex((option) => option.required !== true);
  if (firstOptional !== -1 && options.slice(firstOptional).some((option) => option.required === true)) errors.add(path, requiredFirst);
  return options;
}

function readOption(option: unknown, path: (string | number)[], depth: number, errors: FormErrors): void {
  if (!isObject(option)) return errors.add(path, notObject);
  const types = Object.values(OPTION_TYPE);
  if (option.type === undefined) errors.add([...path, "type"], required);
  else if (!types.includes(option.type as 1)) errors.add([...path, "type"], choices(types));
  readName(option.name, [...path, "name"], true, errors);
  readText(option.description, [...path, "description"], 100, errors);
  if (option.required !== undefined && typeof option.required !== "boolean") errors.add([...path, "required"], notBoolean);
  if (option.choices !== undefined && option.choices !== null) {
    if (!Array.isArray(option.choices)) errors.add([...path, "choices"], notList);
    else {
      if (option.choices.length > 25) errors.add([...path, "choices"], maxLength(25));
      option.choices.forEach((choice, index) => {
        if (!isObject(choice)) return errors.add([...path, "choices", index], notObject);
        readText(choice.name, [...path, "choices", index, "name"], 100, errors);
        if (typeof choice.value === "string" && lengthOf(choice.value) > 100) errors.add([...path, "choices", index, "value"], maxLength(100));
      });
      if (option.autocomplete === true && option.choices.length > 0) errors.add([...path, "autocomplete"], autocompleteWithChoices);
    }
  }
  const nested = option.type === OPTION_TYPE.SUB_COMMAND || option.type === OPTION_TYPE.SUB_COMMAND_GROUP;
  if (nested && option.options !== undefined && depth < 2) readOptions(option.options, [...path, "options"], depth + 1, errors);
}

function readName(value: unknown, path: (string | number)[], slash: boolean, errors: FormErrors): string | undefined {
  if (value === undefined || value === null) {
    errors.add(path, required);
    return undefined;
  }
  if (typeof value !== "string") {
    errors.add(path, notString(value));
    return undefined;
  }
  if (lengthOf(value) < 1 || lengthOf(value) > 32) errors.add(path, badLength(1, 32));
  else if (slash && (!CHAT_INPUT_NAME.test(value) || value.toLowerCase() !== value)) errors.add(path, invalidName);
  return value;
}

function readText(value: unknown, path: (string | number)[], max: number, errors: FormErrors): string | undefined {
  if (value === undefined || value === null) {
    errors.add(path, required);
    return undefined;
  }
  if (typeof value !== "string") {
    errors.add(path, notString(value));
    return undefined;
  }
  if (lengthOf(value) < 1 || lengthOf(value) > max) errors.add(path, badLength(1, max));
  return value;
}

/** The name, description and value text a command's size counts (options and choices included). */
function textOf(node: unknown): string[] {
  if (!isObject(node)) return [];
  const own = ["name", "description", "value"].flatMap((key) => (typeof node[key] === "string" ? [node[key] as string] : []));
  const children = [...(Array.isArray(node.options) ? node.options : []), ...(Array.isArray(node.choices) ? node.choices : [])];
  return [...own, ...children.flatMap(textOf)];
}
