import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

// codex-acp's offline launch, for this benchmark and the tests (test/helpers/codexAcp.ts imports
// it): the pinned binary, a scratch home, and a config that points codex at a local fake Responses
// API with everything that phones home off.

/** The pinned `@zed-industries/codex-acp` (devDependencies) ships its Rust binary in a per-platform package. */
const platformPackage = `@zed-industries/codex-acp-${process.platform}-${process.arch}`;
const binaryName = process.platform === "win32" ? "codex-acp.exe" : "codex-acp";

/** The installed codex-acp binary, or why there is none. */
export function codexAcpBinary(): { readonly path: string } | { readonly missing: string } {
  try {
    const path = createRequire(import.meta.url).resolve(`${platformPackage}/bin/${binaryName}`);
    if (existsSync(path)) return { path };
    return { missing: `${path} does not exist` };
  } catch {
    return { missing: `${platformPackage} is not installed` };
  }
}

/** The installed codex-acp's version (its npm package), or undefined. */
export function codexAcpVersion(): string | undefined {
  try {
    return (createRequire(import.meta.url)("@zed-industries/codex-acp/package.json") as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** The env var codex reads the fake provider's key from; any value works against the fake. */
export const codexApiKeyVariable = "TURNSTREAM_FAKE_OPENAI_KEY";

/**
 * `$CODEX_HOME/config.toml` for an offline run, as the tests write it: one custom provider speaking
 * the Responses API at `baseUrl` (no login needed), no retries, no update check, web search,
 * shell snapshot, analytics, feedback, telemetry export or history.
 */
export function codexConfigToml(baseUrl: string): string {
  return [
    `model = "gpt-5.4-mini"`,
    `model_provider = "turnstream_fake"`,
    `check_for_update_on_startup = false`,
    `web_search = "disabled"`,
    ``,
    `[model_providers.turnstream_fake]`,
    `name = "turnstream fake Responses API"`,
    `base_url = ${JSON.stringify(baseUrl)}`,
    `env_key = ${JSON.stringify(codexApiKeyVariable)}`,
    `wire_api = "responses"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    ``,
    // The shell snapshot runs the user's login shell at session start; nothing here needs it.
    `[features]`,
    `shell_snapshot = false`,
    ``,
    `[analytics]`,
    `enabled = false`,
    ``,
    `[feedback]`,
    `enabled = false`,
    ``,
    `[otel]`,
    `exporter = "none"`,
    `log_user_prompt = false`,
    ``,
    `[history]`,
    `persistence = "none"`,
    ``,
  ].join("\n");
}

/** How to launch codex-acp for one run: `[agent]`'s command and env, and its scratch home. */
export interface CodexAgent {
  readonly command: string;
  /** Everything codex needs: turnstream starts agents with a cleared environment plus `[agent].env`. */
  readonly env: Record<string, string>;
  /** Removes the scratch `HOME`. */
  cleanup(): void;
}

/** codex-acp offline against the fake Responses API at `baseUrl`, in a fresh `HOME` and `CODEX_HOME`. Throws when the binary is missing. */
export function codexAgent(baseUrl: string): CodexAgent {
  const binary = codexAcpBinary();
  if (!("path" in binary)) throw new Error(`codex-acp not found: ${binary.missing}`);
  const home = mkdtempSync(join(tmpdir(), "turnstream-bench-codex-"));
  const codexHome = join(home, "codex");
  mkdirSync(codexHome);
  writeFileSync(join(codexHome, "config.toml"), codexConfigToml(baseUrl));
  return {
    command: binary.path,
    env: { HOME: home, CODEX_HOME: codexHome, [codexApiKeyVariable]: "sk-turnstream-fake", RUST_LOG: "warn", NO_COLOR: "1" },
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  };
}
