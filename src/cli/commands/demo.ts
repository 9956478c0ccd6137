import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { filter, firstValueFrom } from "rxjs";
import { fileURLToPath } from "node:url";
import { createBroker } from "../../broker/createBroker.js";
import { DevGateway } from "../../devgateway/devGateway.js";
import { runTerminal } from "../../devgateway/terminal.js";
import { createLogger } from "../../log/logger.js";
import { parseCommandArgs } from "../commandArgs.js";
import { exitCodes } from "../exitCodes.js";
import { UsageError, type CliIo } from "../io.js";
import { demoUsage } from "../usage.js";

/** The bundled offline agent, next to this file in `dist/`. */
const demoAgentPath = fileURLToPath(new URL("../../demo/demoAgent.js", import.meta.url));

/** The `[delivery]` the demo runs in; the demo agent is told the mode and speaks it. */
const deliveryProfiles = {
  // One envelope per turn, its bubbles paced 400 ms apart.
  structured: { mode: "structured", bubble_delay_ms: 400 },
  // As upstream's sequential.toml: each bubble goes out the moment the agent decides it.
  sequential: { mode: "sequential", bubble_delay_ms: 0 },
} as const;
type DemoDelivery = keyof typeof deliveryProfiles;
const deliveries = Object.keys(deliveryProfiles) as DemoDelivery[];

/**
 * `turnstream demo [--delivery structured|sequential]`: a local gateway, the broker on the embedded
 * bus, and the bundled offline agent, with a terminal prompt — type a message, see the reply. Ends
 * on Ctrl-D or SIGINT/SIGTERM.
 */
export async function demoCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs({
    args: [...args],
    options: {
      delivery: { type: "string", default: "structured" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout(`${demoUsage}\n`);
    return exitCodes.ok;
  }
  const delivery = values.delivery as DemoDelivery;
  if (!deliveries.includes(delivery)) {
    throw new UsageError(`--delivery ${JSON.stringify(values.delivery)} is not allowed; expected one of ${deliveries.join(", ")}`);
  }
  const shutdown = io.shutdownRequested();
  const stateDir = mkdtempSync(join(tmpdir(), "turnstream-demo-"));
  // The gateway makes its own random token; only the broker and the printed page URL get it.
  const gateway = await DevGateway.start({ host: "127.0.0.1", port: 0 });
  // Only problems reach the terminal; the conversation is the output.
  const logger = createLogger({ level: "warn", destination: { write: (line: string) => io.stderr(line) } });
  const broker = createBroker({
    logger,
    env: io.env,
    config: {
      gateway: { url: gateway.url, token: gateway.token, allow_all_users: true, allow_all_channels: true },
      agent: { command: process.execPath, args: [demoAgentPath], env: { TURNSTREAM_DEMO_DELIVERY: delivery } },
      pool: { state_dir: stateDir },
      // The demo shows bubbles; real configs still default to text.
      delivery: deliveryProfiles[delivery],
      // The demo agent's "silent" in sequential mode is this token (an empty reply would say "_(no response)_").
      silent: { enabled: true, token: "NO_REPLY" },
      // The demo's terminal shows bubbles one per line; status reactions would print between them.
      reactions: { enabled: false },
    },
  });
  const lines = createInterface({ input: process.stdin, terminal: false });
  try {
    await broker.start();
    // Messages typed before the broker's socket is up would reach nobody.
    if (gateway.brokerCount === 0) await firstValueFrom(gateway.connections.pipe(filter((count) => count > 0)));
    io.stdout(`turnstream demo — gateway ${gateway.url}, offline demo agent. Type a message ("help"); Ctrl-D to quit.\n`);
    io.stdout(`${deliveryLine(delivery)}\n`);
    io.stdout(`chat page: ${gateway.pageUrl}\n`);
    // The page's typing indicator stops when a turn is over (including one that says nothing).
    const settled = broker.settledTurns.subscribe(() => gateway.turnFinished());
    const terminal = runTerminal({ gateway, lines, write: io.stdout, now: () => performance.now() });
    const ended = new Promise<string>((resolve) => lines.once("close", () => resolve("end of input")));
    await Promise.race([shutdown, ended]);
    terminal.unsubscribe();
    const result = await broker.stop({ graceMs: 5_000 });
    settled.unsubscribe();
    return result.abandoned === 0 ? exitCodes.ok : exitCodes.failure;
  } finally {
    lines.close();
    await gateway.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** The start-up line naming the delivery mode; structured mode points at sequential for "slow". */
function deliveryLine(delivery: DemoDelivery): string {
  return delivery === "structured"
    ? `delivery: structured (one envelope per turn, bubbles 400 ms apart); for "slow" as bubbles 2 s apart run: turnstream demo --delivery sequential`
    : `delivery: sequential (each bubble sent the moment the agent decides it)`;
}
