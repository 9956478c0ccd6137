import { isAbsolute, resolve } from "node:path";
import type { Config } from "../config/index.js";

/**
 * Where the usercron file is, as upstream finds it, or undefined when usercron is off (it needs
 * `usercron_enabled = true` and a `usercron_path`). An absolute path is taken as it is; a relative
 * one is `$HOME/.openab/<path>`, or `.openab/<path>` under `cwd` when `HOME` is unset or empty.
 * Pure: reads nothing but its arguments.
 */
export function usercronPathOf(config: Pick<Config, "cron">, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const { usercron_enabled: enabled, usercron_path: path } = config.cron;
  if (!enabled || path === undefined) return undefined;
  if (isAbsolute(path)) return path;
  // resolve() skips an empty segment: an unset or empty HOME leaves `cwd` as the base.
  return resolve(cwd, env["HOME"] ?? "", ".openab", path);
}
