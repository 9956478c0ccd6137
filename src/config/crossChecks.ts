import type { ConfigProblem } from "./errors.js";
import { urlHasToken } from "./redactUrl.js";
import type { Config } from "./schema.js";

type BusConfig = Config["bus"];
type GatewayConfig = NonNullable<Config["gateway"]>;

/** Whether a NATS URL carries user info (`nats://user:pass@host`, `nats://TOKEN@host`). */
export function busUrlHasUserinfo(url: string | undefined): boolean {
  if (url === undefined) return false;
  try {
    const parsed = new URL(url);
    return parsed.username !== "" || parsed.password !== "";
  } catch {
    return false;
  }
}

/** `[bus]` credentials: at most one way of giving them, and user with password. Names keys, never values. */
export function busCredentialProblems(bus: BusConfig): ConfigProblem[] {
  const given = [
    bus.token !== undefined && "bus.token",
    (bus.user !== undefined || bus.password !== undefined) && "bus.user/bus.password",
    bus.creds !== undefined && "bus.creds",
    busUrlHasUserinfo(bus.url) && "user info in bus.url",
  ].filter((key): key is string => key !== false);
  if (given.length > 1) {
    return [{ path: "bus", message: `NATS credentials are given twice (${given.join(" and ")}): keep one of them` }];
  }
  if ((bus.user === undefined) !== (bus.password === undefined)) {
    return [{ path: "bus", message: "bus.user and bus.password go together: set both or neither" }];
  }
  return [];
}

/** `[gateway]`: the token once, as `token` or as `?token=` in the URL, never both (the gateway would get two). */
export function gatewayTokenProblems(gateway: GatewayConfig | undefined): ConfigProblem[] {
  if (gateway?.token === undefined || !urlHasToken(gateway.url)) return [];
  return [{ path: "gateway", message: "the gateway token is given twice (gateway.token and ?token= in gateway.url): keep one of them" }];
}

/**
 * Every check that spans more than one key, run on a config that passed the schema. `run`,
 * `check-config` and the programmatic constructors all get them from resolveConfig, so what one
 * refuses the others refuse with the same line; none of them reads a file or connects.
 */
export function crossCheckProblems(config: Config): ConfigProblem[] {
  return [...gatewayTokenProblems(config.gateway), ...busCredentialProblems(config.bus)];
}
