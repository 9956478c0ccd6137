/** One thing wrong with a config: where (dotted key path, "" for the whole file) and what. */
export interface ConfigProblem {
  readonly path: string;
  readonly message: string;
}

export interface ConfigErrorOptions {
  /** The file the config came from, when there was one. */
  readonly source?: string;
  readonly cause?: unknown;
}

function problemLine(problem: ConfigProblem): string {
  return problem.path === "" ? problem.message : `${problem.path}: ${problem.message}`;
}

/**
 * A config that cannot be used. Carries every problem found, not just the first, so an operator
 * fixes the file in one pass; the message is one line per problem and never a stack or a dump.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly problems: readonly ConfigProblem[];
  readonly source?: string;

  constructor(problems: readonly ConfigProblem[], options: ConfigErrorOptions = {}) {
    super(problems.map(problemLine).join("\n"), "cause" in options ? { cause: options.cause } : undefined);
    this.problems = Object.freeze([...problems]);
    if (options.source !== undefined) this.source = options.source;
  }

  /** The problems as printable lines, `"<path>: <message>"` (just the message when the path is empty). */
  lines(): string[] {
    return this.problems.map(problemLine);
  }
}
