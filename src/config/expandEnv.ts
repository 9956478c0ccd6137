const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces each `${NAME}` in `value` with `env[NAME]`; an unset variable becomes "" (as a shell
 * would), so a missing secret shows up as an auth failure, not a literal "${API_KEY}" sent upstream.
 * Nothing else is special: no `$NAME`, no defaults, no escapes.
 */
export function expandEnvRefs(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(ENV_REF, (_ref, name: string) => env[name] ?? "");
}
