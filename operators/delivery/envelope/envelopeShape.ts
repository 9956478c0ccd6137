/**
 * The `openab.turn.v1` envelope's shape and its strict decoder (`delivery-and-triage.md` §2):
 * unknown fields are rejected at every level, as OpenAB's serde `deny_unknown_fields` does.
 */
import { isJsonObject } from "../../ingress/frames/jsonObject.js";

/** What the agent wants after its bubbles. `tool` is a proposal only: logged, never executed. */
export type TurnNext =
  | { readonly type: "stop" }
  | { readonly type: "wait" }
  | { readonly type: "silent" }
  | { readonly type: "tool"; readonly name: string; readonly arguments: unknown };

export interface EnvelopeBubble {
  /** For logs and correlation only. */
  readonly id: string;
  readonly text: string;
}

/** A decoded envelope, before the rules of `parse_structured` (schema, limits, ids) apply. */
export interface TurnEnvelope {
  readonly schema: string;
  readonly messages: readonly EnvelopeBubble[];
  readonly next: TurnNext;
}

export type DecodeResult =
  | { readonly ok: true; readonly envelope: TurnEnvelope }
  /** `detail` names fields and indices only: never a key or value the agent wrote. */
  | { readonly ok: false; readonly detail: string };

const ENVELOPE_FIELDS = ["schema", "messages", "next"];
const BUBBLE_FIELDS = ["id", "text"];
const NEXT_TYPES = ["stop", "wait", "silent", "tool"];
const TOOL_FIELDS = ["type", "name", "arguments"];

/** A failed check, carrying the detail up to `decodeEnvelope`. */
class Rejection {
  constructor(readonly detail: string) {}
}

/** Decodes the JSON text of a located envelope. */
export function decodeEnvelope(json: string): DecodeResult {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    // V8's message quotes the document; serde's names a line and column. Neither is needed.
    return { ok: false, detail: "not valid JSON" };
  }
  try {
    return { ok: true, envelope: envelopeFrom(value) };
  } catch (error) {
    if (error instanceof Rejection) return { ok: false, detail: error.detail };
    throw error;
  }
}

function envelopeFrom(value: unknown): TurnEnvelope {
  const fields = objectAt(value, "the envelope", ENVELOPE_FIELDS);
  if (fields.schema === undefined) throw new Rejection("missing field `schema`");
  const schema = stringAt(fields.schema, "schema");
  const messages = fields.messages === undefined ? [] : bubblesFrom(fields.messages);
  const next = fields.next === undefined ? { type: "stop" as const } : nextFrom(fields.next);
  return { schema, messages, next };
}

function bubblesFrom(value: unknown): EnvelopeBubble[] {
  if (!Array.isArray(value)) throw new Rejection("`messages` must be an array");
  return value.map((item: unknown, index) => {
    const where = `messages[${index}]`;
    const fields = objectAt(item, `\`${where}\``, BUBBLE_FIELDS);
    if (fields.id === undefined) throw new Rejection(`missing field \`${where}.id\``);
    if (fields.text === undefined) throw new Rejection(`missing field \`${where}.text\``);
    return { id: stringAt(fields.id, `${where}.id`), text: stringAt(fields.text, `${where}.text`) };
  });
}

/** `next` is internally tagged by `type`, as serde's `#[serde(tag = "type")]`. */
function nextFrom(value: unknown): TurnNext {
  if (!isJsonObject(value)) throw new Rejection("`next` must be an object");
  if (value.type === undefined) throw new Rejection("missing field `next.type`");
  const type = value.type;
  if (typeof type !== "string" || !NEXT_TYPES.includes(type)) {
    throw new Rejection("`next.type` must be one of `stop`, `wait`, `silent`, `tool`");
  }
  if (type !== "tool") {
    objectAt(value, "`next`", ["type"]);
    return { type } as TurnNext;
  }
  const fields = objectAt(value, "`next`", TOOL_FIELDS);
  if (fields.name === undefined) throw new Rejection("missing field `next.name`");
  const name = stringAt(fields.name, "next.name");
  // Any JSON value, `null` included; only a missing key is an error (serde's `Value` field).
  if (!("arguments" in fields)) throw new Rejection("missing field `next.arguments`");
  return { type, name, arguments: fields.arguments };
}

/** The object's fields, rejecting any key outside `allowed` (checked in document order). */
function objectAt(value: unknown, where: string, allowed: readonly string[]): Record<string, unknown> {
  if (!isJsonObject(value)) throw new Rejection(`${where} must be an object`);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      // The key itself is the agent's text: name the allowed set instead.
      throw new Rejection(`unknown field in ${where}, expected ${allowed.map((name) => `\`${name}\``).join(", ")}`);
    }
  }
  return value;
}

function stringAt(value: unknown, path: string): string {
  if (typeof value !== "string") throw new Rejection(`\`${path}\` must be a string`);
  // serde_json rejects an escaped lone surrogate (`"\ud800"`); JSON.parse keeps it.
  if (LONE_SURROGATE.test(value)) throw new Rejection(`\`${path}\` is not valid Unicode`);
  return value;
}

const LONE_SURROGATE = /\p{Surrogate}/u;
