import type { Config } from "./schema.js";

const MASK = "***";

function masked(value: string | undefined): string | undefined {
  return value === undefined ? undefined : MASK;
}

/**
 * A copy of `config` safe to print or log: tokens and passwords become "***" when set, and every
 * `[agent].env` value does too, since that is where API keys usually live. The input is untouched.
 */
export function maskSecrets(config: Config): Config {
  const copy = structuredClone(config);
  if (copy.gateway !== undefined) copy.gateway.token = masked(copy.gateway.token);
  copy.dev_gateway.token = masked(copy.dev_gateway.token);
  copy.bus.token = masked(copy.bus.token);
  copy.bus.password = masked(copy.bus.password);
  copy.agent.env = Object.fromEntries(Object.keys(copy.agent.env).map((name) => [name, MASK]));
  return copy;
}
