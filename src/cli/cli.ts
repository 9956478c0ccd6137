import { ConfigError } from "../config/errors.js";
import { exitCodes } from "./exitCodes.js";
import { UsageError, type CliIo } from "./io.js";
import { mainUsage } from "./usage.js";
import { packageVersion } from "../version.js";

/**
 * Runs one CLI invocation and resolves with its exit code. Errors a user can cause (bad flags,
 * a missing file, bad TOML, a bad value) print one line per problem and exit 2, never a stack.
 * Each command's module is loaded only when it runs: `turnstream mcp`, which an agent starts for
 * every session, must not pay for the broker's.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "run":
        return await (await import("./commands/run.js")).runCommand(rest, io);
      case "demo":
        return await (await import("./commands/demo.js")).demoCommand(rest, io);
      case "bubble-test":
        return await (await import("./commands/bubbleTest.js")).bubbleTestCommand(rest, io);
      case "dev-gateway":
        return await (await import("./commands/devGateway.js")).devGatewayCommand(rest, io);
      case "check-config":
        return await (await import("./commands/checkConfig.js")).checkConfigCommand(rest, io);
      case "agent":
        return await (await import("./commands/agent.js")).agentCommand(rest, io);
      case "mcp":
        return await (await import("./commands/mcp.js")).mcpCommand(rest, io);
      case "help":
      case "-h":
      case "--help":
        io.stdout(`${mainUsage}\n`);
        return exitCodes.ok;
      case "-V":
      case "--version":
        io.stdout(`${packageVersion()}\n`);
        return exitCodes.ok;
      case undefined:
        io.stderr(`${mainUsage}\n`);
        return exitCodes.usage;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}; run "turnstream --help"`);
    }
  } catch (err) {
    return reportError(err, io);
  }
}

function reportError(err: unknown, io: CliIo): number {
  if (err instanceof ConfigError) {
    const where = err.source === undefined ? "" : `${err.source}: `;
    for (const line of err.lines()) io.stderr(`turnstream: ${where}${line}\n`);
    return exitCodes.usage;
  }
  if (err instanceof UsageError) {
    io.stderr(`turnstream: ${err.message}\n`);
    return exitCodes.usage;
  }
  const message = err instanceof Error ? err.message : String(err);
  io.stderr(`turnstream: ${message}\n`);
  return exitCodes.failure;
}
