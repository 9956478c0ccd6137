import type { AgentConfig } from "../config/index.js";

const baseVariables = ["HOME", "PATH", "USER"] as const;

/**
 * The agent's environment, as OpenAB builds it: empty, plus `HOME`, `PATH` and `USER` from the
 * broker, then `[agent].env` (already `${VAR}`-expanded by the config loader), then each name in
 * `[agent].inherit_env` copied from the broker unless `env` set it explicitly.
 */
export function agentEnvironment(agent: Pick<AgentConfig, "env" | "inherit_env">, brokerEnv: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of baseVariables) {
    const value = brokerEnv[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, agent.env);
  for (const name of agent.inherit_env) {
    const value = brokerEnv[name];
    if (value !== undefined && !(name in agent.env)) env[name] = value;
  }
  return env;
}

/** Removes ANSI escape sequences and control characters, so an agent cannot forge or garble log lines. */
export function sanitizeLogLine(line: string, maxChars = 2000): string {
  // eslint-disable-next-line no-control-regex
  const clean = line.replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, "").replace(/[\u0000-\u001f\u007f-\u009f]/g, "");
  if (clean.length <= maxChars) return clean;
  // Never cut a surrogate pair (an emoji) in half.
  const end = /[\ud800-\udbff]/.test(clean.charAt(maxChars - 1)) ? maxChars - 1 : maxChars;
  return `${clean.slice(0, end)}…`;
}
