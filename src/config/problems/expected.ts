import * as z from "zod";

/**
 * What each field accepts, in words ("an integer ≥ 1", "a ws:// or wss:// URL"). Kept in our own
 * registry rather than `.describe()` so it is only ever used for error messages.
 */
const expectations = z.registry<{ readonly text: string }>();

/** Registers what `schema` accepts, for "expected …" in config problems. Returns the same schema. */
export function expecting<S extends z.ZodType>(schema: S, text: string): S {
  expectations.add(schema, { text });
  return schema;
}

function oneStepIn(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault) {
    return schema.unwrap() as z.ZodType;
  }
  if (schema instanceof z.ZodPipe) return schema.in as z.ZodType;
  return schema;
}

/** Steps through optional/default/prefault wrappers and transform pipes to the schema that checks input. */
export function innerSchema(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let next = oneStepIn(current); next !== current; next = oneStepIn(current)) current = next;
  return current;
}

/** The registered words on `schema` or on any wrapper inside it, outermost first. */
function registered(schema: z.ZodType): string | undefined {
  let current = schema;
  for (;;) {
    const meta = expectations.get(current);
    if (meta !== undefined) return meta.text;
    const next = oneStepIn(current);
    if (next === current) return undefined;
    current = next;
  }
}

/** "a string" → "strings", for "an array of strings" / "a table of strings". */
function plural(text: string): string {
  return text.replace(/^(a|an) /, "").replace(/\b(string|integer|number|boolean|table)\b/, "$1s");
}

/** Words for what `schema` accepts. */
export function expectedText(schema: z.ZodType): string {
  const text = registered(schema);
  if (text !== undefined) return text;
  const inner = innerSchema(schema);
  if (inner instanceof z.ZodBoolean) return "a boolean";
  if (inner instanceof z.ZodString) return "a string";
  if (inner instanceof z.ZodNumber) return inner.isInt ? "an integer" : "a number";
  if (inner instanceof z.ZodArray) return `an array of ${plural(expectedText(inner.element as z.ZodType))}`;
  if (inner instanceof z.ZodRecord) return `a table of ${plural(expectedText(inner.valueType as z.ZodType))}`;
  if (inner instanceof z.ZodObject) return "a table";
  return "a valid value";
}
