import * as z from "zod";
import { choice } from "../choice.js";
import { nonEmptyString, stringList, stringTable } from "../fields.js";

/** `[agent] permission_mode`: how `session/request_permission` is answered for an unattended chat (see `decidePermission`). */
export const permissionModes = ["allow_always", "allow_once", "reject"] as const;
export type PermissionMode = (typeof permissionModes)[number];

/** OpenAB's default agent command; `turnstream run` only warns when it is missing (see startupChecks). */
export const DEFAULT_AGENT_COMMAND = "openab-agent";

const agentKeys = z.strictObject({
  command: nonEmptyString().optional(),
  args: stringList().optional(),
  working_dir: nonEmptyString().optional(),
  env: stringTable().default(() => ({})),
  inherit_env: stringList().default(() => []),
  // turnstream's own key: OpenAB always answers with its allow_always-first rule (the default).
  permission_mode: choice({ values: permissionModes }).default("allow_always"),
});

export interface AgentConfig {
  command: string;
  args: string[];
  working_dir: string;
  /** Values with `${VAR}` already expanded from the broker's environment (as every string of the file). */
  env: Record<string, string>;
  inherit_env: string[];
  /** How `session/request_permission` is answered (see `decidePermission`). */
  permission_mode: PermissionMode;
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
    env: keys.env,
    inherit_env: keys.inherit_env,
    permission_mode: keys.permission_mode,
  };
}

/** `[agent]`: the ACP agent process. Its defaults depend on the broker's environment, hence a factory. */
export function agentSection(env: NodeJS.ProcessEnv) {
  return agentKeys.transform((keys) => resolveAgent(keys, env)).prefault({});
}
