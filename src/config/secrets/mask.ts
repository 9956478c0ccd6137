import { isSecretParam, redactUrl, redactUrlsIn } from "./redactUrl.js";
import type { Config } from "../schema.js";
import { holdsSecret, isUrlKey } from "./secretKeys.js";

const MASK = "***";

function maskedAt(path: readonly string[], value: unknown): unknown {
  if (holdsSecret(path) && typeof value !== "object") return value === undefined ? undefined : MASK;
  if (typeof value === "string") return isUrlKey(path) ? redactUrl(value) : redactUrlsIn(value);
  if (Array.isArray(value)) return value.map((item: unknown, i) => maskedAt([...path, String(i)], item));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, maskedAt([...path, key], inner)]));
  }
  return value;
}

/**
 * A copy of `config` safe to print or log: every secret key (`secretKeys`: tokens, passwords, every
 * `[agent].env` value, since that is where API keys usually live) becomes "***" when set, and
 * every URL anywhere in it loses its user info and credential-like parameters. The input is untouched.
 */
export function maskSecrets(config: Config): Config {
  return maskedAt([], config) as Config;
}

/** The credentials written into a URL: its user, password and credential-like parameters, decoded. */
function urlCredentials(url: string): string[] {
  try {
    const parsed = new URL(url);
    const params = [...parsed.searchParams].filter(([name]) => isSecretParam(name)).map(([, value]) => value);
    return [decodeURIComponent(parsed.username), decodeURIComponent(parsed.password), ...params];
  } catch {
    return [];
  }
}

function secretsAt(path: readonly string[], value: unknown): string[] {
  if (typeof value === "string") {
    if (holdsSecret(path)) return [value];
    return isUrlKey(path) ? urlCredentials(value) : [];
  }
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => secretsAt([...path, key], inner));
}

/**
 * Every secret value the config holds (the values of `secretKeys`, credentials inside the URL
 * keys), for a logger to scrub from its lines as a last line of defence. Empty strings are left out.
 */
export function secretValues(config: Config): string[] {
  return [...new Set(secretsAt([], config).filter((value) => value !== ""))];
}
