import { isIPv6 } from "node:net";
import { IANAZone } from "luxon";
import * as z from "zod";
import { expecting } from "./problems/expected.js";
import { printValue } from "./problems/printValue.js";
import { parseQuietHours, QuietHoursError } from "./quietHours.js";
import { redactUrl } from "./secrets/redactUrl.js";

// Field schemas shared by the sections. Each registers what it accepts in words, so every problem
// can say "expected …" without the problem formatter knowing the schema.

/** An integer in [min, max]; a TOML float such as 4.5 is a wrong type, not rounded. */
export function int(min: number, max?: number) {
  const base = z.int().min(min);
  const schema = max === undefined ? base : base.max(max);
  return expecting(schema, max === undefined ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`);
}

export function positiveNumber() {
  return expecting(z.number().positive(), "a number > 0");
}

export function nonEmptyString() {
  return expecting(z.string().min(1), "a non-empty string");
}

export function stringList() {
  return expecting(z.array(z.string()), "an array of strings");
}

/** A TOML table of string values, e.g. `[agent.env]`. */
export function stringTable() {
  return expecting(z.record(z.string(), z.string()), "a table of strings");
}

export function intTable(min: number) {
  return expecting(z.record(z.string(), int(min)), `a table of integers ≥ ${min}`);
}

/** The generic refusal for a string of the right type but the wrong shape. */
export function notAllowed(value: unknown, expected: string): string {
  return `${printValue(value)} is not allowed; expected ${expected}`;
}

/** A string that `check` accepts; `check` returns the full problem message when it does not. */
function checkedString(expected: string, check: (value: string) => string | undefined) {
  const schema = z.string().superRefine((value, ctx) => {
    const message = check(value);
    if (message !== undefined) ctx.addIssue({ code: "custom", message, input: value });
  });
  return expecting(schema, expected);
}

function isUrlWithScheme(value: string, schemes: readonly string[]): boolean {
  try {
    const url = new URL(value);
    return schemes.includes(url.protocol) && url.host !== "";
  } catch {
    return false;
  }
}

function urlWithScheme(schemes: readonly string[]) {
  const expected = `a ${schemes.map((scheme) => `${scheme}//`).join(" or ")} URL`;
  // A refused URL is quoted with its credentials masked: it may still carry a real password.
  return checkedString(expected, (value) => (isUrlWithScheme(value, schemes) ? undefined : notAllowed(redactUrl(value), expected)));
}

export function websocketUrl() {
  return urlWithScheme(["ws:", "wss:"]);
}

export function natsUrl() {
  return urlWithScheme(["nats:", "tls:"]);
}

export function httpUrl() {
  return urlWithScheme(["http:", "https:"]);
}

export function httpsUrl() {
  return urlWithScheme(["https:"]);
}

const HOST_PORT = /^(?:\[([^\]]+)\]|([A-Za-z0-9._-]+)):(\d{1,5})$/;

/** A validated `host:port` (see `hostPort()`) as its parts; undefined for anything else. IPv6 comes back without brackets. */
export function splitHostPort(value: string): { readonly host: string; readonly port: number } | undefined {
  const match = HOST_PORT.exec(value);
  if (match === null) return undefined;
  const ipv6 = match[1];
  if (ipv6 !== undefined && !isIPv6(ipv6)) return undefined;
  const port = Number(match[3]);
  return port <= 65_535 ? { host: ipv6 ?? (match[2] as string), port } : undefined;
}

function isHostPort(value: string): boolean {
  return splitHostPort(value) !== undefined;
}

/** `"host:port"` for a listening socket; IPv6 hosts in brackets, port 0 picks a free one. */
export function hostPort() {
  const expected = `"host:port" with a port from 0 to 65535 (IPv6 as "[::1]:8765")`;
  return checkedString(expected, (value) => (isHostPort(value) ? undefined : notAllowed(value, expected)));
}

const SUBJECT_TOKENS = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;

/** Subject tokens without wildcards or whitespace, so every subject built on the prefix is valid. */
export function subjectPrefix() {
  const expected = `NATS subject tokens (letters, digits, "-", "_") joined by dots`;
  return checkedString(expected, (value) => (SUBJECT_TOKENS.test(value) ? undefined : notAllowed(value, expected)));
}

export function ianaTimezone() {
  return checkedString(`an IANA timezone such as "Europe/Berlin"`, (value) =>
    IANAZone.isValidZone(value) ? undefined : `${printValue(value)} is not a known IANA timezone`,
  );
}

export function quietHours() {
  return checkedString(`"HH:MM-HH:MM" with 24-hour times`, (value) => {
    try {
      parseQuietHours(value);
      return undefined;
    } catch (error) {
      if (error instanceof QuietHoursError) return error.message;
      throw error;
    }
  });
}
