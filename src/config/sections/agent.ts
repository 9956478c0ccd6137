import * as z from "zod";
import { expandEnvRefs } from "../expandEnv.js";
import { nonEmptyString, stringList, stringTable } from "../fields.js";

/** OpenAB's default agent command; `turnstream run` only warns when it is missing (see startupChecks). */
export const DEFAULT_AGENT_COMMAND = "openab-agent";

const agentKeys = z.strictObject({
  command: nonEmptyString().optional(),
  args: stringList().optional(),
  working_dir: nonEmptyString().optional(),
  env: stringTable().default(() => ({})),
  inherit_env: stringList().default(() => []),
});

export interface AgentConfig {
  command: string;
  args: string[];
  working_dir: string;
  /** Values with `${VAR}` already expanded from the broker's environment. */
  env: Record<string, string>;
  inherit_env: string[];
}

/** Fills the environment-derived defaults (OpenAB's): command and args from OPENAB_AGENT_COMMAND, working_dir from HOME. */
export function resolveAgent(keys: z.output<typeof agentKeys>, env: NodeJS.ProcessEnv): AgentConfig {
  const words = (env.OPENAB_AGENT_COMMAND ?? "").split(/\s+/).filter((word) => word !== "");
  const [firstWord, ...restWords] = words;
  // Args from the env var belong to the env var's command; an explicit command starts with no args.
  const defaultArgs = keys.command === undefined ? restWords : [];
  return {
    command: keys.command ?? firstWord ?? DEFAULT_AGENT_COMMAND,
    args: keys.args ?? defaultArgs,
    working_dir: keys.working_dir ?? (env.HOME !== undefined && env.HOME !== "" ? env.HOME : "."),
    env: Object.fromEntries(Object.entries(keys.env).map(([name, value]) => [name, expandEnvRefs(value, env)])),
    inherit_env: keys.inherit_env,
  };
}

/** `[agent]`: the ACP agent process. Its defaults depend on the broker's environment, hence a factory. */
export function agentSection(env: NodeJS.ProcessEnv) {
  return agentKeys.transform((keys) => resolveAgent(keys, env)).prefault({});
}
