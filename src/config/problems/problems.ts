import type * as z from "zod";
import { closestKey } from "./closestKey.js";
import type { ConfigProblem } from "../errors.js";
import { expectedText } from "./expected.js";
import { OPENAB_SECTIONS } from "../openabSections.js";
import { printValue, valueKind } from "./printValue.js";
import { redactUrl } from "../secrets/redactUrl.js";
import { holdsSecret, isUrlKey } from "../secrets/secretKeys.js";
import { dottedPath, keysAt, schemaAt } from "../shape.js";

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
    const openab = issue.path.length === 0 ? OPENAB_SECTIONS[key] : undefined;
    if (openab !== undefined) return { path: key, message: openab };
    const guess = closestKey(key, allowed);
    const head = guess === undefined ? "unknown key" : `unknown key (did you mean ${JSON.stringify(guess)}?)`;
    return { path: dottedPath([...issue.path, key]), message: `${head}${listing}` };
  });
}

/** "an array", "a string": the kind of a value whose content must not be shown. */
function kindWithArticle(value: unknown): string {
  const kind = valueKind(value);
  if (kind === "nothing" || kind === "null") return kind;
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}

/**
 * How a problem quotes the offending value: never at all under a secret key ("a string (value
 * hidden)"), a URL key's string with its credentials masked, anything else printed.
 */
function shownValue(path: readonly PropertyKey[], input: unknown): { readonly kind: string; readonly text: string } {
  if (holdsSecret(path)) return { kind: `${kindWithArticle(input)} (value hidden)`, text: "" };
  const printable = typeof input === "string" && isUrlKey(path) ? redactUrl(input) : input;
  const text = printValue(printable);
  const kind = valueKind(input);
  return { kind, text: kind === text ? "" : text };
}

function wrongTypeMessage(expected: string, path: readonly PropertyKey[], input: unknown): string {
  if (input === undefined) return `required; expected ${expected}`;
  const { kind, text } = shownValue(path, input);
  // smol-toml refuses unsafe integers itself; a bigint only arrives from a programmatic caller.
  if (typeof input === "bigint") return `${text === "" ? kind : text} is out of range; expected ${expected}`;
  return text === "" ? `expected ${expected}, got ${kind}` : `expected ${expected}, got ${kind} ${text}`;
}

function messageFor(root: z.ZodType, issue: Issue): string {
  switch (issue.code) {
    // Our own checks (choices, URLs, quiet hours, …) already word the whole message, quoting
    // values through printValue; under a secret key the value is left out instead, unless the
    // check says its message quotes none (`valueFree`: a `[telegram]` variable's problem).
    case "custom":
      return holdsSecret(issue.path) && issue.params?.["valueFree"] !== true ? `${kindWithArticle(issue.input)} (value hidden) is not allowed; expected ${expectedFor(root, issue)}` : issue.message;
    case "invalid_type":
      return wrongTypeMessage(expectedFor(root, issue), issue.path, issue.input);
    default: {
      const { kind, text } = shownValue(issue.path, issue.input);
      return `${text === "" ? kind : text} is not allowed; expected ${expectedFor(root, issue)}`;
    }
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
