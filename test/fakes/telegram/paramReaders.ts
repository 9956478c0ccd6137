import { badRequest } from "./botApiError.js";
import type { Params } from "./requestParams.js";

/**
 * Reading one parameter by its documented type. Telegram reads an empty value as "not given"; a value of
 * the wrong type it mostly reads as 0 or false, where the fake refuses it (400 naming the parameter):
 * a fake that accepted garbage would prove nothing about the caller.
 */

/** A chat as a call names it: a numeric id, or `@username` of a public chat. */
export type ChatRef = number | `@${string}`;

const INTEGER = /^[+-]?\d{1,16}$/;

function given(params: Params, name: string): unknown {
  const value = params[name];
  return value === undefined || value === null || value === "" ? undefined : value;
}

export function optionalString(params: Params, name: string): string | undefined {
  const value = given(params, name);
  if (value === undefined) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw badRequest(`Parameter "${name}" must be a String`);
}

export function optionalInteger(params: Params, name: string): number | undefined {
  const value = given(params, name);
  if (value === undefined) return undefined;
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "string" && INTEGER.test(value.trim())) return Number(value.trim());
  throw badRequest(`Parameter "${name}" must be an Integer`);
}

export function optionalBoolean(params: Params, name: string): boolean | undefined {
  const value = given(params, name);
  if (value === undefined) return undefined;
  if (typeof value === "boolean") return value;
  const text = typeof value === "string" ? value.trim().toLowerCase() : undefined;
  if (text === "true" || text === "1" || text === "yes") return true;
  if (text === "false" || text === "0" || text === "no") return false;
  throw badRequest(`Parameter "${name}" must be a Boolean`);
}

/** A parameter that holds JSON (`reply_markup`, `reaction`…): an object as sent in JSON, or its text in a form. */
export function optionalJson(params: Params, name: string, what: string): unknown {
  const value = given(params, name);
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch (cause) {
    throw badRequest(`Can't parse ${what} JSON object`, { cause });
  }
}

export function requiredChatId(params: Params, name = "chat_id"): ChatRef {
  const value = given(params, name);
  if (value === undefined) throw badRequest(`${name} is empty`);
  if (typeof value === "string" && value.startsWith("@")) return value as `@${string}`;
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "string" && INTEGER.test(value.trim())) return Number(value.trim());
  // Telegram reads any other text as chat 0, which is never found.
  throw badRequest("chat not found");
}

/** Fields of a JSON object parameter, refused in TDLib's words (`Can't find field "message_id"`). */
export class ObjectFields {
  constructor(private readonly object: Readonly<Record<string, unknown>>) {}

  static of(value: unknown, what: string): ObjectFields {
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw badRequest(`Object expected as ${what}`);
    return new ObjectFields(value as Record<string, unknown>);
  }

  has(name: string): boolean {
    return this.object[name] !== undefined && this.object[name] !== null;
  }

  raw(name: string): unknown {
    return this.object[name];
  }

  string(name: string): string | undefined {
    const value = this.object[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value === "string") return value;
    if (typeof value === "number") return String(value);
    throw new FieldError(`Field "${name}" must be of type String`);
  }

  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined) throw new FieldError(`Can't find field "${name}"`);
    return value;
  }

  integer(name: string): number | undefined {
    const value = this.object[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value === "number" && Number.isSafeInteger(value)) return value;
    if (typeof value === "string" && INTEGER.test(value)) return Number(value);
    throw new FieldError(`Field "${name}" must be a Number`);
  }

  requiredInteger(name: string): number {
    const value = this.integer(name);
    if (value === undefined) throw new FieldError(`Can't find field "${name}"`);
    return value;
  }

  boolean(name: string): boolean | undefined {
    const value = this.object[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value === "boolean") return value;
    throw new FieldError(`Field "${name}" must be of type Boolean`);
  }
}

/** A bad field inside a JSON parameter; the caller words the 400 with what it was reading. */
export class FieldError extends Error {
  override readonly name = "FieldError";
}
