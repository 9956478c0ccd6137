import { createRequire } from "node:module";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";

// The official ACP v1 JSON Schema, as published with the SDK: what the client's frames (test/acp)
// and the reference agent's frames (test/agent) are checked against.
const schema = createRequire(import.meta.url)("@agentclientprotocol/sdk/schema/v1/schema.json") as Record<string, unknown>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
const integerIn = (min: number, max: number) => ({ type: "number" as const, validate: (n: number) => Number.isInteger(n) && n >= min && n <= max });
// The numeric formats the schema uses (Rust-generated), checked for real rather than ignored.
ajv.addFormat("int32", integerIn(-(2 ** 31), 2 ** 31 - 1));
ajv.addFormat("uint16", integerIn(0, 2 ** 16 - 1));
ajv.addFormat("uint32", integerIn(0, 2 ** 32 - 1));
ajv.addFormat("int64", integerIn(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
ajv.addFormat("uint64", integerIn(0, Number.MAX_SAFE_INTEGER));
ajv.addFormat("double", { type: "number", validate: (n: number) => Number.isFinite(n) });
ajv.addFormat("uri", { type: "string", validate: (s: string) => URL.canParse(s) });
ajv.addSchema({ ...schema, $id: "acp" });

/** Ajv's compiled validator for a part of the ACP v1 schema, e.g. `#/$defs/InitializeRequest`. */
export function acpSchema(ref: string): ValidateFunction {
  const validate = ajv.getSchema(`acp${ref}`);
  if (validate === undefined) throw new Error(`no schema at ${ref}`);
  return validate;
}

/** Why the last value `validate` saw did not pass. */
export function schemaErrors(validate: ValidateFunction | undefined): string {
  return ajv.errorsText(validate?.errors);
}

/** A validator for a part of the ACP v1 schema: `undefined` when the value passes, else why not. */
export function acpValidator(ref: string): (value: unknown) => string | undefined {
  const validate = acpSchema(ref);
  return (value) => (validate(value) ? undefined : schemaErrors(validate));
}

/** Any message an agent may send (request, response or notification). */
export const agentMessage = acpValidator("#/anyOf/0");
