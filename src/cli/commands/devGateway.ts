import { createInterface } from "node:readline";
import { loadConfigFile, defaultConfig } from "../../config/index.js";
import { devGatewayToken } from "../../config/sections/devGateway.js";
import { DevGateway, devGatewayHello, type Refusal } from "../../devgateway/devGateway.js";
import { runTerminal } from "../../devgateway/terminal.js";
import { parseCommandArgs } from "../commandArgs.js";
import { exitCodes } from "../exitCodes.js";
import { UsageError, type CliIo } from "../io.js";
import { devGatewayUsage } from "../usage.js";

/**
 * `turnstream dev-gateway [--listen HOST:PORT] [--token T] [--config FILE]`: a local gateway that
 * speaks the gateway protocol, for a broker started separately (`[gateway] url` = the printed URL).
 * Without a configured token it makes one and prints it in both URLs, so no other web page can use it.
 */
export async function devGatewayCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs({
    args: [...args],
    options: {
      listen: { type: "string" },
      token: { type: "string" },
      config: { type: "string", short: "c" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout(`${devGatewayUsage}\n`);
    return exitCodes.ok;
  }
  const config = values.config === undefined ? defaultConfig(io.env) : await loadConfigFile(values.config, { env: io.env });
  const { host, port } = hostPort(values.listen ?? config.dev_gateway.listen);
  if (values.token !== undefined && !devGatewayToken.safeParse(values.token).success) {
    throw new UsageError(`--token is not allowed (value hidden); expected letters, digits and "." "_" "~" "-"`);
  }
  const token = values.token ?? config.dev_gateway.token;
  const shutdown = io.shutdownRequested();
  const allowedHosts = config.dev_gateway.allowed_hosts ?? [];
  // Its hello says what it does, so a broker sends it files inline (shown as 📎 lines).
  const gateway = await DevGateway.start({ host, port, allowedHosts, hello: devGatewayHello(), ...(token === undefined ? {} : { token }) });
  const refusals = gateway.refused.subscribe((refusal) => io.stderr(`${refusalLine(refusal)}\n`));
  const lines = createInterface({ input: process.stdin, terminal: false });
  try {
    const query = `?token=${encodeURIComponent(gateway.token)}`;
    io.stdout(`dev gateway: brokers connect to ${gateway.url}${query}; chat page ${gateway.pageUrl}\n`);
    io.stdout(`(brokers: [gateway] url = "${gateway.url}" and token = the value after ?token=)\n`);
    io.stdout(`type a message, /proactive <text>, or /id <event_id> [text]; Ctrl-D to quit\n`);
    const terminal = runTerminal({ gateway, lines, write: io.stdout, now: () => performance.now() });
    const ended = new Promise<string>((resolve) => lines.once("close", () => resolve("end of input")));
    await Promise.race([shutdown, ended]);
    terminal.unsubscribe();
    return exitCodes.ok;
  } finally {
    refusals.unsubscribe();
    lines.close();
    await gateway.close();
  }
}

/** One stderr line per refused request: what and why, never the token. */
export function refusalLine({ status, reason, path, upgrade }: Refusal): string {
  return `dev gateway: refused ${upgrade ? "WebSocket" : "HTTP"} ${path} with ${status} (${reason})`;
}

function hostPort(listen: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(listen);
  const port = Number(match?.[3]);
  if (match === null || !Number.isInteger(port) || port > 65_535) {
    throw new UsageError(`--listen ${JSON.stringify(listen)} is not allowed; expected HOST:PORT, e.g. 127.0.0.1:8765`);
  }
  return { host: match[1] ?? match[2] ?? "127.0.0.1", port };
}
