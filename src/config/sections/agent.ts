import * as z from "zod";
import { choice } from "../choice.js";
import { int, nonEmptyString, stringList, stringTable } from "../fields.js";

/** How the broker answers `session/request_permission` itself (see `decidePermission`): a mode, and `permission_fallback`. */
export const permissionPolicies = ["allow_always", "allow_once", "reject"] as const;
export type PermissionPolicy = (typeof permissionPolicies)[number];

/** `[agent] permission_mode`: answered by a policy, or `ask`: the person in the chat answers (`permission_answerers`). */
export const permissionModes = [...permissionPolicies, "ask"] as const;
export type PermissionMode = (typeof permissionModes)[number];

/** `[agent] permission_answerers`: who may answer a question asked in the chat. */
export const permissionAnswerers = ["requester", "allowed_users"] as const;
export type PermissionAnswerers = (typeof permissionAnswerers)[number];

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
  // turnstream's own keys: the person in the chat answers permission requests and `ask` calls.
  permission_answerers: choice({ values: permissionAnswerers }).default("requester"),
  permission_timeout_secs: int(1).default(300),
  permission_fallback: choice({ values: permissionPolicies }).default("reject"),
  ask_timeout_secs: int(1).default(600),
  // turnstream's own: a directory besides the working directory that `send_file` may read from.
  outbound_dir: nonEmptyString().optional(),
});

export interface AgentConfig {
  command: string;
  args: string[];
  working_dir: string;
  /** Values with `${VAR}` already expanded from the broker's environment (as every string of the file). */
  env: Record<string, string>;
  inherit_env: string[];
  /** How `session/request_permission` is answered (see `decidePermission`); `ask`: in the chat. */
  permission_mode: PermissionMode;
  /** Who may answer a question in the chat (default `requester`: the person whose message started the turn). */
  permission_answerers?: PermissionAnswerers;
  /** How long a permission request waits for its answer in the chat (default 300). */
  permission_timeout_secs?: number;
  /** What a permission request no one answered in time gets (default `reject`). */
  permission_fallback?: PermissionPolicy;
  /** How long an `ask` call waits for all its answers (default 600). */
  ask_timeout_secs?: number;
  /**
   * A directory besides `working_dir` whose files `send_file` (and a `resource_link`) may send;
   * absent: only the working directory's.
   */
  outbound_dir?: string;
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
    permission_answerers: keys.permission_answerers,
    permission_timeout_secs: keys.permission_timeout_secs,
    permission_fallback: keys.permission_fallback,
    ask_timeout_secs: keys.ask_timeout_secs,
    ...(keys.outbound_dir === undefined ? {} : { outbound_dir: keys.outbound_dir }),
  };
}

/** `[agent]`: the ACP agent process. Its defaults depend on the broker's environment, hence a factory. */
export function agentSection(env: NodeJS.ProcessEnv) {
  return agentKeys.transform((keys) => resolveAgent(keys, env)).prefault({});
}
