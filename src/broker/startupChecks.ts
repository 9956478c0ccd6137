import type { Logger } from "../log/logger.js";
import { agentStartProblem } from "../acp/agentStartProblem.js";
import { stateDirOf } from "../acp/pool/createSessionPool.js";
import { ConfigError, type Config } from "../config/index.js";
import { DEFAULT_AGENT_COMMAND } from "../config/sections/agent.js";
import { startProblemMessage, type StartProblem } from "../failure/brokerFailure.js";
import { stateDirProblem } from "../state/stateDirProblem.js";
import type { Role } from "./broker.js";

/**
 * What `turnstream run` checks on the file system before it connects anywhere: a worker's agent
 * can be started (working dir, command on the agent's PATH) and, on the embedded bus, the session
 * file's state dir is usable. A problem throws `ConfigError` (one line per problem, naming the
 * key; exit 2). The built-in default command (`openab-agent`, no `[agent] command` and no
 * `OPENAB_AGENT_COMMAND`) is only returned as a notice, so a bare `turnstream run` still starts.
 * Brokers created in code skip these checks: their callers bring their own agents and stores.
 */
export function checkStartup(config: Config, role: Role, env: NodeJS.ProcessEnv): StartProblem[] {
  if (role === "edge") return [];
  const found: StartProblem[] = [];
  const agent = agentStartProblem(config.agent, env);
  if (agent !== undefined) found.push(agent);
  // On NATS the session ids live in KV; state_dir is read only by the embedded bus's file store.
  const state = config.bus.url === undefined ? stateDirProblem(stateDirOf(config, env)) : undefined;
  if (state !== undefined) found.push(state);
  const notices = found.filter((problem) => isDefaultCommandMissing(problem, config, env));
  const problems = found.filter((problem) => !notices.includes(problem));
  if (problems.length > 0) {
    throw new ConfigError(problems.map((problem) => ({ path: problem.configKey, message: startProblemMessage(problem) })));
  }
  return notices;
}

/** Logs what `checkStartup` let pass: turns will answer `agent_unavailable` until it is fixed. */
export function warnStartupNotices(logger: Logger, notices: readonly StartProblem[]): void {
  for (const { configKey, path, errno, problem } of notices) {
    logger.warn({ reason: "agent_command_not_found", configKey, path, errno, problem }, "agent command not found at start-up");
  }
}

function isDefaultCommandMissing(problem: StartProblem, config: Config, env: NodeJS.ProcessEnv): boolean {
  const fromEnv = (env.OPENAB_AGENT_COMMAND ?? "").trim() !== "";
  return problem.configKey === "agent.command" && config.agent.command === DEFAULT_AGENT_COMMAND && !fromEnv;
}
