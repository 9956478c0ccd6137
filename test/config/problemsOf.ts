import { ConfigError, type ConfigProblem, parseConfigText, resolveConfig } from "../../src/config/index.js";

/** The problems a config input is rejected with; fails the test when it is accepted. */
export function problemsOf(input: unknown, env: NodeJS.ProcessEnv = {}): readonly ConfigProblem[] {
  return rejection(() => resolveConfig(input, { env })).problems;
}

/** The problems TOML text is rejected with. */
export function problemsOfToml(text: string, env: NodeJS.ProcessEnv = {}): readonly ConfigProblem[] {
  return rejection(() => parseConfigText(text, { env })).problems;
}

export function rejection(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError, but the config was accepted");
}
