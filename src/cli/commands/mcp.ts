import { RelayError, relayStdio } from "../../mcp/stdioRelay.js";
import { parseCommandArgs } from "../commandArgs.js";
import { exitCodes } from "../exitCodes.js";
import type { CliIo } from "../io.js";
import { mcpUsage } from "../usage.js";

/**
 * `turnstream mcp`: the reply tool's stdio server as an agent spawns it — a relay to the broker
 * that offered it. stdout carries MCP only, so it is the process's own stream (not `io.stdout`);
 * problems go to stderr as one line.
 */
export async function mcpCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs({ args: [...args], options: { help: { type: "boolean", short: "h" } } });
  if (values.help) {
    io.stdout(`${mcpUsage}\n`);
    return exitCodes.ok;
  }
  // The agent went away mid-write: nothing is left to tell it.
  process.stdout.on("error", () => undefined);
  try {
    await relayStdio({ env: io.env, stdin: process.stdin, stdout: process.stdout });
    return exitCodes.ok;
  } catch (err) {
    if (!(err instanceof RelayError)) throw err;
    io.stderr(`turnstream mcp: ${err.message}\n`);
    return exitCodes.failure;
  }
}
