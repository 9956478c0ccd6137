import { EventEmitter } from "node:events";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { filter, firstValueFrom, type Observable } from "rxjs";
import { fileURLToPath } from "node:url";
import { slashCommand } from "../../../operators/ingress/slashCommand.js";
import { createBroker } from "../../broker/createBroker.js";
import { DevGateway } from "../../devgateway/devGateway.js";
import { runTerminal, type LineSource } from "../../devgateway/terminal.js";
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
 * on Ctrl-D or SIGINT/SIGTERM; piped input is answered line by line, then the demo exits 0. The
 * broker's log goes to a file the demo names, so the terminal shows only the chat.
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
  // The terminal shows the chat; the broker's log goes to a file the demo names (kept after exit).
  const logPath = join(tmpdir(), `turnstream-demo-${process.pid}.log`);
  const logFile = createWriteStream(logPath, { flags: "a", mode: 0o600 });
  // The gateway makes its own random token; only the broker and the printed page URL get it.
  const gateway = await DevGateway.start({ host: "127.0.0.1", port: 0 });
  const logger = createLogger({ level: "info", destination: { write: (line: string) => logFile.write(line) } });
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
  let lines: Interface | undefined;
  try {
    await broker.start();
    // Messages typed before the broker's socket is up would reach nobody.
    if (gateway.brokerCount === 0) await firstValueFrom(gateway.connections.pipe(filter((count) => count > 0)));
    io.stdout(`turnstream demo — gateway ${gateway.url}, offline demo agent. Type a message ("help"); Ctrl-D to quit.\n`);
    io.stdout(`${deliveryLine(delivery)}\n`);
    io.stdout(`chat page: ${gateway.pageUrl}\n`);
    io.stdout(`log: ${logPath}\n`);
    // The page's typing indicator stops when a turn is over (including one that says nothing).
    const settled = broker.settledTurns.subscribe(() => gateway.turnFinished());
    // Read input only now: what was typed meanwhile waits in stdin, so nothing is dropped.
    lines = createInterface({ input: process.stdin, terminal: false });
    const typed = process.stdin.isTTY === true ? interactive(lines) : scripted(lines, broker.settledTurns);
    const terminal = runTerminal({ gateway, lines: typed.lines, write: io.stdout, now: () => performance.now() });
    await Promise.race([shutdown, typed.ended]);
    terminal.unsubscribe();
    const result = await broker.stop({ graceMs: 5_000 });
    settled.unsubscribe();
    return result.abandoned === 0 ? exitCodes.ok : exitCodes.failure;
  } finally {
    lines?.close();
    await gateway.close();
    await new Promise((resolve) => logFile.end(resolve));
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** What the terminal reads, and when the conversation is over. */
interface TypedInput {
  readonly lines: LineSource;
  readonly ended: Promise<unknown>;
}

/** A person at a terminal: every line at once, and Ctrl-D ends the demo. */
function interactive(lines: Interface): TypedInput {
  return { lines, ended: new Promise((resolve) => lines.once("close", resolve)) };
}

/**
 * Piped input (`echo flight | turnstream demo`): one message at a time, the next once every turn
 * sent so far settled, so every line is answered in order; `/cancel` goes at once, to reach the
 * turn it cancels. At the end of input the demo ends once the last turn settled.
 */
function scripted(lines: Interface, settledTurns: Observable<unknown>): TypedInput {
  const feed = new EventEmitter();
  const waiting: string[] = [];
  let outstanding = 0;
  let inputDone = false;
  let finish: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => (finish = resolve));
  const send = (line: string): void => {
    outstanding += 1;
    feed.emit("line", line);
  };
  const pump = (): void => {
    while (outstanding === 0) {
      const line = waiting.shift();
      if (line === undefined) {
        if (inputDone) finish();
        return;
      }
      if (line.trim() !== "") send(line);
    }
  };
  const settled = settledTurns.subscribe(() => {
    outstanding = Math.max(0, outstanding - 1);
    pump();
  });
  lines.on("line", (line) => {
    if (slashCommand(line) === "cancel" && outstanding > 0) send(line);
    else waiting.push(line);
    pump();
  });
  lines.once("close", () => {
    inputDone = true;
    pump();
  });
  void ended.then(() => settled.unsubscribe());
  return { lines: feed, ended };
}

/** The start-up line naming the delivery mode; structured mode points at sequential for "slow". */
function deliveryLine(delivery: DemoDelivery): string {
  return delivery === "structured"
    ? `delivery: structured (one envelope per turn, bubbles 400 ms apart); for "slow" as bubbles 2 s apart run: turnstream demo --delivery sequential`
    : `delivery: sequential (each bubble sent the moment the agent decides it)`;
}
