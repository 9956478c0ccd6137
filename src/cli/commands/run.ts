import { connectBroker } from "../../broker/connectBroker.js";
import type { Role } from "../../broker/broker.js";
import { checkStartup, warnStartupNotices } from "../../broker/startupChecks.js";
import { defaultConfig, loadConfigFile } from "../../config/index.js";
import { parseCommandArgs } from "../commandArgs.js";
import { exitCodes } from "../exitCodes.js";
import { UsageError, type CliIo } from "../io.js";
import { runUsage } from "../usage.js";

const roles: readonly Role[] = ["all", "edge", "worker"];

/** `turnstream run [--config FILE] [--role all|edge|worker]`: runs until SIGINT/SIGTERM, then stops gracefully. */
export async function runCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs({
    args: [...args],
    options: {
      config: { type: "string", short: "c" },
      role: { type: "string", default: "all" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout(`${runUsage}\n`);
    return exitCodes.ok;
  }
  const role = values.role as Role;
  if (!roles.includes(role)) {
    throw new UsageError(`--role ${JSON.stringify(values.role)} is not allowed; expected one of ${roles.join(", ")}`);
  }
  const config = values.config === undefined ? defaultConfig(io.env) : await loadConfigFile(values.config, { env: io.env });
  const notices = checkStartup(config, role, io.env); // before connecting anywhere; a problem exits 2
  const broker = await connectBroker({ config, role, env: io.env });
  warnStartupNotices(broker.logger, notices);
  // Listen before announcing readiness: a signal right after "broker ready" must stop us gracefully.
  const shutdown = io.shutdownRequested();

  // The embedded broker holds no socket of its own yet; keep the process alive until asked to stop.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  try {
    await broker.start();
    const signal = await shutdown;
    broker.logger.info({ signal }, "shutdown requested");
    const result = await broker.stop();
    return result.abandoned === 0 ? exitCodes.ok : exitCodes.failure;
  } finally {
    clearInterval(keepAlive);
  }
}
