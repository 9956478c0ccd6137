import * as z from "zod";
import { innerSchema } from "./problems/expected.js";

/** The schema that checks the value at `path`, or undefined when the path leaves the schema. */
export function schemaAt(root: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = root;
  for (const step of path) {
    if (current === undefined) return undefined;
    const inner = innerSchema(current);
    if (inner instanceof z.ZodObject) {
      const shape = inner.shape as Record<string, z.ZodType>;
      current = typeof step === "string" && Object.hasOwn(shape, step) ? shape[step] : undefined;
    } else if (inner instanceof z.ZodArray) {
      current = typeof step === "number" ? (inner.element as z.ZodType) : undefined;
    } else if (inner instanceof z.ZodRecord) {
      current = inner.valueType as z.ZodType;
    } else {
      current = undefined;
    }
  }
  return current;
}

/** The keys a table at `path` accepts, in schema order; empty when it is not a fixed-key table. */
export function keysAt(root: z.ZodType, path: readonly PropertyKey[]): string[] {
  const schema = schemaAt(root, path);
  const inner = schema === undefined ? undefined : innerSchema(schema);
  return inner instanceof z.ZodObject ? Object.keys(inner.shape) : [];
}

/** Every dotted key path in the schema, tables included (`reactions`, `reactions.timing.stall_soft_ms`). */
export function keyPaths(root: z.ZodType, prefix = ""): string[] {
  const inner = innerSchema(root);
  if (!(inner instanceof z.ZodObject)) return [];
  return Object.entries(inner.shape as Record<string, z.ZodType>).flatMap(([key, child]) => {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    return [path, ...keyPaths(child, path)];
  });
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** A zod path as TOML would name it: `delivery.mode`, `gateway.allowed_users[2]`, `agent.env."a.b"`. */
export function dottedPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const step of path) {
    if (typeof step === "number") {
      text += `[${step}]`;
    } else {
      const key = String(step);
      const name = BARE_KEY.test(key) ? key : JSON.stringify(key);
      text += text === "" ? name : `.${name}`;
    }
  }
  return text;
}
