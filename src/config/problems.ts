import type * as z from "zod";
import { closestKey } from "./closestKey.js";
import type { ConfigProblem } from "./errors.js";
import { expectedText } from "./expected.js";
import { printValue, valueKind } from "./printValue.js";
import { dottedPath, keysAt, schemaAt } from "./shape.js";

type Issue = z.core.$ZodIssue;

// Zod's words for a type, for the rare issue whose path does not lead back into the schema.
const ZOD_EXPECTED: Readonly<Record<string, string>> = {
  int: "an integer",
  number: "a number",
  string: "a string",
  boolean: "a boolean",
  array: "an array",
  object: "a table",
  record: "a table",
};

function expectedFor(root: z.ZodType, issue: Issue): string {
  const schema = schemaAt(root, issue.path);
  if (schema !== undefined) return expectedText(schema);
  if (issue.code === "invalid_type") return ZOD_EXPECTED[issue.expected] ?? `a ${issue.expected}`;
  return "a valid value";
}

function unknownKeyProblems(root: z.ZodType, issue: Issue & { code: "unrecognized_keys" }): ConfigProblem[] {
  const allowed = keysAt(root, issue.path);
  const listing = allowed.length > 0 ? `; allowed keys: ${allowed.join(", ")}` : "";
  return issue.keys.map((key) => {
    const guess = closestKey(key, allowed);
    const head = guess === undefined ? "unknown key" : `unknown key (did you mean ${JSON.stringify(guess)}?)`;
    return { path: dottedPath([...issue.path, key]), message: `${head}${listing}` };
  });
}

function wrongTypeMessage(expected: string, input: unknown): string {
  if (input === undefined) return `required; expected ${expected}`;
  // smol-toml refuses unsafe integers itself; a bigint only arrives from a programmatic caller.
  if (typeof input === "bigint") return `${printValue(input)} is out of range; expected ${expected}`;
  const kind = valueKind(input);
  const shown = printValue(input);
  return kind === shown ? `expected ${expected}, got ${kind}` : `expected ${expected}, got ${kind} ${shown}`;
}

function messageFor(root: z.ZodType, issue: Issue): string {
  switch (issue.code) {
    // Our own checks (choices, URLs, quiet hours, …) already word the whole message.
    case "custom":
      return issue.message;
    case "invalid_type":
      return wrongTypeMessage(expectedFor(root, issue), issue.input);
    default:
      return `${printValue(issue.input)} is not allowed; expected ${expectedFor(root, issue)}`;
  }
}

/**
 * Zod issues as config problems: one per offending key, path as TOML names it, message naming the
 * value and what is allowed. `root` is the schema that produced the issues.
 */
export function problemsFromIssues(issues: readonly Issue[], root: z.ZodType): ConfigProblem[] {
  return issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? unknownKeyProblems(root, issue)
      : [{ path: dottedPath(issue.path), message: messageFor(root, issue) }],
  );
}
