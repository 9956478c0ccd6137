import type * as z from "zod";
import { closestKey } from "./closestKey.js";
import { CROSS_CHECKS } from "./crossChecks.js";
import type { ConfigProblem } from "./errors.js";
import { type KeyPath, overlaps, withKeyReads } from "./keyReads.js";
import { problemsFromIssues } from "./problems.js";
import type { Config } from "./schema.js";
import { keysAt } from "./shape.js";

// Each round puts aside at least one more key, so this only guards against a schema that keeps
// finding new trouble; a config file is not this deep.
const MAX_ROUNDS = 32;

/** A config input checked in one pass: the config when nothing is wrong, else every problem. */
export type ConfigCheck =
  | { readonly ok: true; readonly config: Config }
  | { readonly ok: false; readonly problems: readonly ConfigProblem[]; readonly error?: z.ZodError };

/**
 * Every problem of a config input at once: the schema's, and the cross-key checks'. Zod stops at
 * the first failing level (a table's refinements do not run once a key inside it failed, and
 * nothing after the parse runs at all), so a file with a bad value used to hide every other kind
 * of problem. Here each bad key is put aside — removed, so its default stands in — and the rest
 * parsed again, until it parses; then every cross-key check runs, except one that read a key put
 * aside (its verdict would be about the default, not the file: consequential noise). An issue at
 * or under a key put aside is noise too (a required key removed with its bad value).
 *
 * `input` is the `${VAR}`-expanded input, `unset` where a `${VAR}` was not set (their problems
 * are `known`, reported first).
 */
export function checkConfig(schema: z.ZodType<Config>, input: unknown, known: readonly ConfigProblem[], unset: readonly KeyPath[]): ConfigCheck {
  const problems = [...known];
  const asides: KeyPath[] = [];
  let value = input;
  for (const path of unset) value = putAside(value, path, asides);
  let error: z.ZodError | undefined;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const result = schema.safeParse(value, { reportInput: true });
    if (result.success) {
      problems.push(...crossCheckProblemsBeside(result.data, asides));
      return problems.length === 0 ? { ok: true, config: result.data } : { ok: false, problems, ...(error === undefined ? {} : { error }) };
    }
    error ??= result.error;
    const { issues } = result.error;
    // A misspelt key stands for the absent one it resembles: "required" there, or a check reading it, is noise.
    asides.push(...issues.flatMap((issue) => (issue.code === "unrecognized_keys" ? meantKeys(schema, value, issue.path, issue.keys) : [])));
    const fresh = issues.filter((issue) => issue.code === "unrecognized_keys" || !asides.some((aside) => isUnder(issue.path, aside)));
    problems.push(...problemsFromIssues(fresh, schema));
    const removed = asides.length;
    for (const issue of issues) {
      for (const path of keysToPutAside(issue)) value = putAside(value, path, asides);
    }
    if (asides.length === removed) break; // nothing more can be put aside: the rest cannot be checked
  }
  return { ok: false, problems, ...(error === undefined ? {} : { error }) };
}

/** The cross-key checks' problems, leaving out each check that read a key put aside. */
function crossCheckProblemsBeside(config: Config, asides: readonly KeyPath[]): ConfigProblem[] {
  if (asides.length === 0) return CROSS_CHECKS.flatMap((check) => check(config));
  return CROSS_CHECKS.flatMap((check) => {
    const { result, reads } = withKeyReads(config, check);
    return reads.some((read) => asides.some((aside) => overlaps(read, aside))) ? [] : result;
  });
}

/** The keys an issue says are wrong: an unknown key itself, else the key (never an array item) holding the bad value. */
function keysToPutAside(issue: z.core.$ZodIssue): KeyPath[] {
  if (issue.code === "unrecognized_keys") return issue.keys.map((key) => [...issue.path, key]);
  return [issue.path];
}

/** The absent keys of the schema that unknown `keys` at `path` are close to (as their problems suggest them). */
function meantKeys(schema: z.ZodType, value: unknown, path: KeyPath, keys: readonly string[]): KeyPath[] {
  const allowed = keysAt(schema, path);
  return keys.flatMap((key) => {
    const guess = closestKey(key, allowed);
    return guess === undefined || withoutKey(value, [...path, guess]) !== undefined ? [] : [[...path, guess]];
  });
}

/**
 * `value` without the key at `path` (the nearest table key: an array goes as a whole), recorded in
 * `asides`. A key that is not there (a required one) puts its table aside instead; the root
 * cannot be put aside, and then nothing changes.
 */
function putAside(value: unknown, path: KeyPath, asides: KeyPath[]): unknown {
  const numeric = path.findIndex((step) => typeof step !== "string");
  let key = numeric < 0 ? path : path.slice(0, numeric);
  while (key.length > 0) {
    const removed = withoutKey(value, key);
    if (removed !== undefined) {
      asides.push(key);
      return removed.value;
    }
    key = key.slice(0, -1);
  }
  return value;
}

/** A copy of `value` without the key at `path` (copied along the path only), or undefined when no such key is there. */
function withoutKey(value: unknown, path: KeyPath): { readonly value: unknown } | undefined {
  const [step, ...rest] = path;
  if (!isTable(value) || typeof step !== "string" || !Object.hasOwn(value, step)) return undefined;
  if (rest.length === 0) {
    const { [step]: _removed, ...kept } = value;
    return { value: kept };
  }
  const inner = withoutKey(value[step], rest);
  return inner === undefined ? undefined : { value: { ...value, [step]: inner.value } };
}

function isUnder(path: KeyPath, aside: KeyPath): boolean {
  return path.length >= aside.length && overlaps(path, aside);
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
