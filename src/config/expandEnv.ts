import type { ConfigProblem } from "./errors.js";
import { dottedPath } from "./shape.js";

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces each `${NAME}` in `value` with `env[NAME]`; an unset variable becomes "" (as a shell
 * would). Nothing else is special: no `$NAME`, no defaults, no escapes. The config loader uses
 * `expandConfigEnv`, which refuses an unset variable instead.
 */
export function expandEnvRefs(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(ENV_REF, (_ref, name: string) => env[name] ?? "");
}

/** A config input with its `${VAR}`s expanded, and one problem per unset variable. */
export interface ExpandedConfig {
  readonly value: unknown;
  readonly problems: readonly ConfigProblem[];
  /** Where the unset variables are (one path per problem): the loader validates the rest without them. */
  readonly unset: readonly (readonly PropertyKey[])[];
}

export interface ExpandOptions {
  /** Keys where an unset variable becomes `""` without a problem: keys that fall back to a variable of their own (`[telegram]`, as upstream). */
  readonly fallsThrough?: (path: readonly PropertyKey[]) => boolean;
}

/**
 * `${NAME}` expanded in every string value of a TOML-shaped config, as OpenAB expands its whole
 * file (its Helm chart writes `[gateway] token = "${GATEWAY_WS_TOKEN}"`). Keys are never expanded.
 * A variable that is not set is a problem naming the key and the variable (never its value; an
 * empty variable is set), except at a key `fallsThrough` names. The input is not changed; tables
 * and arrays without a reference are returned as they are.
 */
export function expandConfigEnv(input: unknown, env: NodeJS.ProcessEnv, options: ExpandOptions = {}): ExpandedConfig {
  const problems: ConfigProblem[] = [];
  const unset: PropertyKey[][] = [];
  const walk = (value: unknown, path: PropertyKey[]): unknown => {
    if (typeof value === "string") {
      if (!value.includes("${")) return value;
      return value.replace(ENV_REF, (_ref, name: string) => {
        const set = env[name];
        if (set !== undefined) return set;
        if (options.fallsThrough?.(path) === true) return "";
        problems.push({ path: dottedPath(path), message: `\${${name}} is not set in the environment` });
        unset.push(path);
        return "";
      });
    }
    if (Array.isArray(value)) {
      let changed = false;
      const items = value.map((item, index) => {
        const next = walk(item, [...path, index]);
        changed ||= next !== item;
        return next;
      });
      return changed ? items : value;
    }
    if (isTable(value)) {
      let changed = false;
      const entries = Object.entries(value).map(([key, item]) => {
        const next = walk(item, [...path, key]);
        changed ||= next !== item;
        return [key, next] as const;
      });
      return changed ? Object.fromEntries(entries) : value;
    }
    return value;
  };
  return { value: walk(input, []), problems, unset };
}

/** A TOML table: a plain object (smol-toml makes them without a prototype). Dates and the like are values. */
function isTable(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
