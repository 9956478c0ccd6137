import { invalidArguments } from "./slackApiError.js";
import type { Params } from "./requestParams.js";

/**
 * Reading one argument by its documented type. Form and query arguments are strings; a JSON body may
 * carry numbers, booleans, arrays and objects, and a form carries those as JSON text (how WebClient sends
 * `blocks`). An empty string is "not given", as Slack reads it. A value of the wrong type is refused as
 * Slack's argument validation refuses it: `invalid_arguments` with a `[json-pointer:/name]` line.
 */

/** A string argument; a JSON number is read as its decimal text (how a float `thread_ts` loses its trailing zeros). */
export function stringArg(params: Params, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw invalidArguments(`must be a string [json-pointer:/${name}]`);
}

/** `true`/`1` and `false`/`0`, as strings or JSON. */
export function booleanArg(params: Params, name: string): boolean | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === "") return undefined;
  if (value === true || value === "true" || value === "1" || value === 1) return true;
  if (value === false || value === "false" || value === "0" || value === 0) return false;
  throw invalidArguments(`must be a boolean [json-pointer:/${name}]`);
}

export function integerArg(params: Params, name: string, range: { min?: number; max?: number } = {}): number | undefined {
  const text = stringArg(params, name);
  if (text === undefined) return undefined;
  if (!/^-?\d+$/.test(text)) throw invalidArguments(`must be an integer [json-pointer:/${name}]`);
  const value = Number(text);
  if (range.min !== undefined && value < range.min) throw invalidArguments(`must be at least ${range.min} [json-pointer:/${name}]`);
  if (range.max !== undefined && value > range.max) throw invalidArguments(`must be at most ${range.max} [json-pointer:/${name}]`);
  return value;
}

/** A JSON value given as JSON text (form) or as itself (JSON body); `undefined` when the text does not parse. */
export function jsonArg(params: Params, name: string): { given: boolean; value: unknown } {
  const value = params[name];
  if (value === undefined || value === null || value === "") return { given: false, value: undefined };
  if (typeof value !== "string") return { given: true, value };
  try {
    return { given: true, value: JSON.parse(value) };
  } catch {
    return { given: true, value: undefined };
  }
}

/** A message timestamp as Slack writes them: seconds, a dot, microseconds (`1714204397.123456`). */
export const TS = /^\d{1,12}\.\d{1,6}$/;
