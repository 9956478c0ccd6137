import { readFile } from "node:fs/promises";
import { parse, TomlError } from "smol-toml";
import * as z from "zod";
import { checkConfig } from "./problems/checkConfig.js";
import { expandConfigEnv } from "./expandEnv.js";
import { ConfigError } from "./errors.js";
import { type Config, configSchemaFor } from "./schema.js";
import { holdsSecret } from "./secrets/secretKeys.js";
import { fallsThroughToEnv } from "./sections/telegramEnv.js";

export interface ResolveOptions {
  /** The broker's environment, for `[agent]` defaults, `[telegram]`'s `TELEGRAM_*` fallbacks and `${VAR}` expansion; default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** The file the input came from, recorded on a ConfigError. */
  readonly source?: string;
}

// Configs this module produced: resolving one again returns it as is (its `${VAR}`s are expanded already).
const resolved = new WeakSet<object>();

/** The zod error as a cause without the offending inputs: a logged cause must not carry a secret value. */
function withoutInputs(error: z.ZodError): z.ZodError {
  return new z.ZodError(
    error.issues.map(({ input: _input, ...issue }) => (holdsSecret(issue.path) ? { ...issue, message: "value hidden" } : issue) as z.core.$ZodIssue),
  );
}

/**
 * Expands `${VAR}` in every string value (an unset one is a problem, except where a `[telegram]`
 * key falls through to its own variable, as upstream), validates a TOML-shaped
 * object, fills every default and runs the cross-key checks (crossCheckProblems). Throws
 * ConfigError listing every problem found in one pass (checkConfig): unset variables, schema
 * problems and cross-key problems together. A config that already came out of this function is
 * returned unchanged.
 */
export function resolveConfig(input: unknown, options: ResolveOptions = {}): Config {
  if (typeof input === "object" && input !== null && resolved.has(input)) return input as Config;
  const env = options.env ?? process.env;
  const expanded = expandConfigEnv(input, env, { fallsThrough: fallsThroughToEnv });
  const checked = checkConfig(configSchemaFor(env), expanded.value, expanded.problems, expanded.unset);
  if (!checked.ok) {
    throw new ConfigError(checked.problems, { source: options.source, ...(checked.error === undefined ? {} : { cause: withoutInputs(checked.error) }) });
  }
  resolved.add(checked.config);
  return checked.config;
}

/** The config an empty file gives. */
export function defaultConfig(env?: NodeJS.ProcessEnv): Config {
  return resolveConfig({}, { env });
}

/** smol-toml's message without its "Invalid TOML document:" prefix and code excerpt. */
function syntaxMessage(error: TomlError): string {
  const first = error.message.split("\n", 1)[0] ?? "";
  const what = first.replace(/^Invalid TOML document:\s*/, "");
  return `invalid TOML at line ${error.line}, column ${error.column}: ${what}`;
}

/** Parses TOML text and resolves it. A syntax error is a ConfigError with one problem saying where. */
export function parseConfigText(text: string, options: ResolveOptions = {}): Config {
  let input: unknown;
  try {
    input = parse(text);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    // No cause: smol-toml's message quotes the offending line, which may hold a secret.
    throw new ConfigError([{ path: "", message: syntaxMessage(error) }], { source: options.source });
  }
  return resolveConfig(input, options);
}

const READ_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EISDIR: "is a directory",
  ENOTDIR: "a parent is not a directory",
};

function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const known = code === undefined ? undefined : READ_FAILURES[code];
  return known ?? (error instanceof Error ? error.message : String(error));
}

/** Reads, parses and resolves a config file. Unreadable files and bad content are both ConfigErrors. */
export async function loadConfigFile(path: string, options: Pick<ResolveOptions, "env"> = {}): Promise<Config> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const message = `cannot read config file ${JSON.stringify(path)}: ${readFailure(error)}`;
    throw new ConfigError([{ path: "", message }], { cause: error });
  }
  return parseConfigText(text, { env: options.env, source: path });
}
