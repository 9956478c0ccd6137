import type { ConfigProblem } from "../errors.js";
import type { Config } from "../schema.js";
import { listenersCollide } from "./telegramChecks.js";

// `[webhooks]`'s checks across endpoints and sections. Each names keys, never a secret.

/** The platforms turnstream speaks to itself when their section is present. */
const NATIVE = ["telegram", "discord", "slack"] as const;

/** Each endpoint's `path` and `name` its own: a request finds one endpoint, an event id one namespace. */
export function webhookUniquenessProblems(config: Config): ConfigProblem[] {
  const endpoints = config.webhooks.endpoints;
  const problems: ConfigProblem[] = [];
  const paths = new Map<string, number>();
  const names = new Map<string, number>();
  endpoints.forEach((endpoint, i) => {
    const samePath = paths.get(endpoint.path);
    if (samePath !== undefined) problems.push({ path: `webhooks.endpoints[${i}].path`, message: `"${endpoint.path}" is also webhooks.endpoints[${samePath}]'s path: give each endpoint its own` });
    else paths.set(endpoint.path, i);
    const sameName = names.get(endpoint.name);
    if (sameName !== undefined) problems.push({ path: `webhooks.endpoints[${i}].name`, message: `"${endpoint.name}" is also webhooks.endpoints[${sameName}]'s name (a name defaults to the path): give each endpoint its own, it keeps their event ids apart` });
    else names.set(endpoint.name, i);
  });
  return problems;
}

/**
 * The conversation an endpoint speaks in must be one this deployment can send to: a native
 * platform whose section is present, or any platform when `[gateway]` is (an OpenAB gateway
 * carries several).
 */
export function webhookPlatformProblems(config: Config): ConfigProblem[] {
  if (config.gateway !== undefined) return [];
  return config.webhooks.endpoints.flatMap((endpoint, i) => {
    const native = NATIVE.find((name) => name === endpoint.platform);
    if (native !== undefined && config[native] !== undefined) return [];
    const fix = native !== undefined ? `add [${native}], or a [gateway] that carries it` : "add a [gateway] that carries it, or name telegram, discord or slack with its section";
    return [{ path: `webhooks.endpoints[${i}].platform`, message: `"${endpoint.platform}" is spoken to by no section of this file: ${fix}` }];
  });
}

/** The webhook listener needs an address it can bind: not one `[metrics]` or Telegram's webhook listener takes in the same process. */
export function webhookListenProblems(config: Config): ConfigProblem[] {
  const { listen, endpoints } = config.webhooks;
  if (endpoints.length === 0) return [];
  const others: [string, string | undefined][] = [
    ["metrics.listen", config.metrics.enabled ? config.metrics.listen : undefined],
    ["telegram.webhook_listen", config.telegram?.mode === "webhook" ? config.telegram.webhook_listen : undefined],
  ];
  return others
    .filter((other): other is [string, string] => other[1] !== undefined && listenersCollide(listen, other[1]))
    .map(([key, address]) => ({ path: "webhooks.listen", message: `"${listen}" and ${key} ("${address}") would take the same port in one process: give one of them another port` }));
}
