import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import type { AgentConfig } from "../../src/config/index.js";
import { FakeResponsesApi } from "./fakeResponsesApi.js";
import { codexAcpBinary, codexApiKeyVariable, codexConfigToml } from "../../bench/lib/codexAcp.js";

// The launch itself (binary, config, key variable) is bench/lib/codexAcp.ts's, shared with the agent-sessions benchmark.
export { codexAcpBinary, codexApiKeyVariable, codexConfigToml };

/**
 * Whether codex-acp suites can run here. In CI a missing binary fails the run instead of
 * skipping: a green CI must mean the real agent ran.
 */
export function codexAcpAvailable(): boolean {
  const binary = codexAcpBinary();
  if ("path" in binary) return true;
  const message = `codex-acp not found (${binary.missing}): codex-acp suites cannot run (npm ci installs the pinned @zed-industries/codex-acp)`;
  if (process.env.CI === "true") throw new Error(message);
  console.warn(`\n!!! ${message}; SKIPPING CODEX-ACP SUITES (this fails in CI) !!!\n`);
  return false;
}

/** How to launch codex-acp for one test: `[agent]`'s command, args and env, and its scratch home. */
export interface CodexAgent {
  readonly command: string;
  readonly args: string[];
  /** Everything codex needs: turnstream starts agents with a cleared environment plus `[agent].env`. */
  readonly env: Record<string, string>;
  /** The scratch `HOME` (with `CODEX_HOME` at `<home>/codex`), removed by `cleanup()`. */
  readonly home: string;
  readonly codexHome: string;
  cleanup(): void;
}

/**
 * codex-acp run offline against the fake Responses API at `baseUrl`: a fresh `HOME` and
 * `CODEX_HOME` (codex writes its sqlite state, session rollouts and skills there), a config that
 * selects the fake, and its API key variable. Throws when the binary is missing (check
 * `codexAcpAvailable()` first).
 */
export function codexAgent(baseUrl: string): CodexAgent {
  const binary = codexAcpBinary();
  if (!("path" in binary)) throw new Error(`codex-acp not found: ${binary.missing}`);
  const home = mkdtempSync(join(tmpdir(), "turnstream-codex-"));
  const codexHome = join(home, "codex");
  mkdirSync(codexHome);
  writeFileSync(join(codexHome, "config.toml"), codexConfigToml(baseUrl));
  return {
    command: binary.path,
    args: [],
    env: {
      // Overrides the broker's HOME, so nothing lands in the real ~/.codex.
      HOME: home,
      CODEX_HOME: codexHome,
      [codexApiKeyVariable]: "sk-turnstream-fake",
      RUST_LOG: "warn",
      NO_COLOR: "1",
    },
    home,
    codexHome,
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  };
}

/** `[agent]` running `codex` in `workingDir`, permissions answered by `permission_mode` (default: OpenAB's rule). */
export function codexAgentConfig(codex: CodexAgent, workingDir: string, permissionMode: AgentConfig["permission_mode"] = "allow_always"): AgentConfig {
  return { command: codex.command, args: codex.args, working_dir: workingDir, env: codex.env, inherit_env: [], permission_mode: permissionMode };
}

/** What `useCodexRun` gives each test: the fake model, codex-acp pointed at it, and a place for what the test starts. */
export interface CodexRun<S extends { stop(): Promise<void> }> {
  /** The test's fake Responses API (fresh for each test). */
  readonly fake: FakeResponsesApi;
  /** codex-acp's command and home, pointed at `fake` (fresh for each test). */
  readonly codex: CodexAgent;
  /** Keeps what the test started, to stop it first after the test; returns it. */
  hold(started: S): S;
}

/**
 * A codex-acp run per test: a fake Responses API and a codex home pointed at it before each test;
 * after it, what the test started is stopped, then the fake closed and the home removed.
 */
export function useCodexRun<S extends { stop(): Promise<void> }>(): CodexRun<S> {
  let fake: FakeResponsesApi | undefined;
  let codex: CodexAgent | undefined;
  let started: S | undefined;
  beforeEach(async () => {
    fake = await FakeResponsesApi.start();
    codex = codexAgent(fake.url);
    started = undefined;
  });
  afterEach(async () => {
    await started?.stop();
    await fake?.close();
    codex?.cleanup();
  });
  const current = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} exists only while a test runs`);
    return value;
  };
  return {
    get fake() {
      return current(fake, "the fake model");
    },
    get codex() {
      return current(codex, "the codex home");
    },
    hold: (value) => (started = value),
  };
}
