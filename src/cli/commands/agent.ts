import { AgentSettingsError } from "../../agent/errors.js";
import { agentSettingsFrom } from "../../agent/agentSettings.js";
import { serveReferenceAgent } from "../../agent/referenceAgent.js";
import { createLogger, resolveLogLevel, stderrDestination } from "../../log/logger.js";
import { parseCommandArgs } from "../commandArgs.js";
import { exitCodes } from "../exitCodes.js";
import { UsageError, type CliIo } from "../io.js";
import { agentUsage } from "../usage.js";

/**
 * `turnstream agent`: the reference ACP agent on stdio, replying through the `reply` tool of an
 * OpenAI-compatible chat-completions model. stdout carries ACP frames only, so it is written
 * directly (not through `io.stdout`) and logs go to stderr. Runs until stdin ends or a signal.
 */
export async function agentCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs({
    args: [...args],
    options: {
      "base-url": { type: "string" },
      model: { type: "string" },
      mode: { type: "string" },
      "max-bubbles": { type: "string" },
      "max-bubble-chars": { type: "string" },
      "max-steps": { type: "string" },
      "timeout-secs": { type: "string" },
      "system-prompt": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout(`${agentUsage}\n`);
    return exitCodes.ok;
  }
  let settings;
  try {
    settings = agentSettingsFrom(io.env, {
      baseUrl: values["base-url"],
      model: values.model,
      mode: values.mode,
      maxBubbles: values["max-bubbles"],
      maxBubbleChars: values["max-bubble-chars"],
      maxSteps: values["max-steps"],
      timeoutSecs: values["timeout-secs"],
      systemPrompt: values["system-prompt"],
    });
  } catch (err) {
    if (!(err instanceof AgentSettingsError)) throw err;
    for (const problem of err.problems) io.stderr(`turnstream: agent: ${problem}\n`);
    return exitCodes.usage;
  }
  let level;
  try {
    // Quiet by default: an ACP client logs every stderr line of its agent.
    level = resolveLogLevel("warn", io.env.LOG_LEVEL);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err), { cause: err });
  }
  const logger = createLogger({ level, destination: stderrDestination() });

  const agent = serveReferenceAgent({ input: process.stdin, output: process.stdout, settings, logger });
  await Promise.race([agent.closed, io.shutdownRequested()]);
  // Running turns answer `cancelled` and the sessions' MCP servers exit; then nothing keeps the process alive.
  await agent.close();
  process.stdin.destroy();
  return exitCodes.ok;
}
