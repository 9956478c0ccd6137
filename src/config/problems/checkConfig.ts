import type * as z from "zod";
import { closestKey } from "./closestKey.js";
import { CROSS_CHECKS } from "./crossChecks.js";
import type { ConfigProblem } from "../errors.js";
import { type KeyPath, withKeyReads } from "./keyReads.js";
import { KeyTree } from "./keyTree.js";
import { problemsFromIssues } from "./problems.js";
import type { Config } from "../schema.js";
import { keysAt } from "../shape.js";

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
  const asides = new KeyTree();
  let value = putAside(input, unset, asides);
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
    for (const issue of issues) if (issue.code === "unrecognized_keys") for (const meant of meantKeys(schema, value, issue.path, issue.keys)) asides.add(meant);
    const fresh = issues.filter((issue) => issue.code === "unrecognized_keys" || !asides.covers(issue.path));
    problems.push(...problemsFromIssues(fresh, schema));
    const before = asides.size;
    value = putAside(value, issues.flatMap((issue) => (issue.code === "unrecognized_keys" ? issue.keys.map((key) => [...issue.path, key]) : [issue.path])), asides);
    if (asides.size === before) break; // nothing more can be put aside: the rest cannot be checked
  }
  return { ok: false, problems, ...(error === undefined ? {} : { error }) };
}

/** The cross-key checks' problems, leaving out each check that read a key put aside. */
function crossCheckProblemsBeside(config: Config, asides: KeyTree): ConfigProblem[] {
  if (asides.size === 0) return CROSS_CHECKS.flatMap((check) => check(config));
  return CROSS_CHECKS.flatMap((check) => {
    const { result, reads } = withKeyReads(config, check);
    return reads.some((read) => asides.touches(read)) ? [] : result;
  });
}

/** The absent keys of the schema that unknown `keys` at `path` are close to (as their problems suggest them). */
function meantKeys(schema: z.ZodType, value: unknown, path: KeyPath, keys: readonly string[]): KeyPath[] {
  const allowed = keysAt(schema, path);
  return keys.flatMap((key) => {
    const guess = closestKey(key, allowed);
    return guess === undefined || holdsKey(value, [...path, guess]) ? [] : [[...path, guess]];
  });
}

/** Keys to remove, as a tree: `true` removes the key, a tree removes keys under it. */
type Removals = Map<string, Removals | true>;

/**
 * `value` without the keys at `paths`, each recorded in `asides`: for each, the nearest table key
 * (an array goes as a whole); a key that is not there (a required one) puts its table aside
 * instead; the root cannot be put aside. One copy along the paths, however many there are.
 */
function putAside(value: unknown, paths: readonly KeyPath[], asides: KeyTree): unknown {
  const removals: Removals = new Map();
  for (const path of paths) {
    const numeric = path.findIndex((step) => typeof step !== "string");
    let key = (numeric < 0 ? path : path.slice(0, numeric)) as readonly string[];
    while (key.length > 0 && !holdsKey(value, key)) key = key.slice(0, -1);
    if (key.length > 0 && asides.add(key)) mark(removals, key);
  }
  return removals.size === 0 ? value : pruned(value, removals);
}

function mark(removals: Removals, key: readonly string[]): void {
  let level = removals;
  for (const [i, step] of key.entries()) {
    const next = level.get(step);
    if (next === true) return; // a table above is going already
    if (i === key.length - 1) {
      level.set(step, true);
      return;
    }
    const inner: Removals = next ?? new Map();
    level.set(step, inner);
    level = inner;
  }
}

function pruned(value: unknown, removals: Removals): unknown {
  if (!isTable(value)) return value;
  const copy = { ...value };
  for (const [key, inner] of removals) {
    if (inner === true) delete copy[key];
    else copy[key] = pruned(copy[key], inner);
  }
  return copy;
}

function holdsKey(value: unknown, path: KeyPath): boolean {
  let current = value;
  for (const step of path) {
    if (!isTable(current) || typeof step !== "string" || !Object.hasOwn(current, step)) return false;
    current = current[step];
  }
  return true;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
