import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const operatorsDir = fileURLToPath(new URL("../operators", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : [];
  });
}

// docs/architecture.md: operators/ is the pure layer. It must not reach into the I/O edges, nor
// read the wall clock (time comes from the scheduler).
describe("the two kinds of code", () => {
  const files = sources(operatorsDir).map((path) => ({ path, text: readFileSync(path, "utf8") }));

  it("operators/ never imports from src/", () => {
    const offenders = files.filter(({ text }) => /from\s+"(\.\.\/)+src\//.test(text)).map(({ path }) => path);
    expect(offenders).toEqual([]);
  });

  it("operators/ never imports node: I/O modules", () => {
    const offenders = files.filter(({ text }) => /from\s+"node:(fs|net|http|child_process|dgram|tls)/.test(text)).map(({ path }) => path);
    expect(offenders).toEqual([]);
  });

  it("operators/ never reads the wall clock", () => {
    const offenders = files.filter(({ text }) => /Date\.now\(|new Date\(\)|DateTime\.now\(/.test(text)).map(({ path }) => path);
    expect(offenders).toEqual([]);
  });
});

// pino is an implementation detail of src/log: everything else takes `Logger` and `createLogger`
// from src/log/logger.ts, so the secret scrubbing and field cleaning there cannot be bypassed.
describe("logging goes through src/log", () => {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const logDir = join(root, "src", "log");
  const files = ["src", "operators", "bench", "test"]
    .flatMap((dir) => sources(join(root, dir)))
    .filter((path) => !path.startsWith(logDir + "/"));

  it("no file outside src/log imports pino or pino-pretty", () => {
    const offenders = files
      .filter((path) => /(from\s+|import\(\s*)"pino(-pretty)?(\/[^"]*)?"/.test(readFileSync(path, "utf8")))
      .map((path) => path.slice(root.length));
    expect(offenders).toEqual([]);
  });
});

/** Relative imports (static `import … from`, `export … from`, and `import("…")`) of one file, as absolute .ts paths. */
function relativeImports(path: string, text: string): string[] {
  const specifiers = [...text.matchAll(/(?:from\s+|import\(\s*)"(\.{1,2}\/[^"]+)"/g)].map((match) => match[1] as string);
  return specifiers.map((specifier) => join(dirname(path), specifier.replace(/\.js$/, ".ts")));
}

/** The import cycles a depth-first search meets, each once, as the files on it relative to the root (none iff the graph has none). */
function importCycles(files: readonly string[], root: string): string[][] {
  const known = new Set(files);
  const edges = new Map(files.map((path) => [path, relativeImports(path, readFileSync(path, "utf8")).filter((to) => known.has(to))]));
  const cycles = new Map<string, string[]>();
  const done = new Set<string>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const visit = (path: string): void => {
    stack.push(path);
    onStack.add(path);
    for (const to of edges.get(path) ?? []) {
      if (onStack.has(to)) {
        const cycle = stack.slice(stack.indexOf(to)).map((file) => file.slice(root.length));
        cycles.set([...cycle].sort().join(" "), cycle);
      } else if (!done.has(to)) visit(to);
    }
    stack.pop();
    onStack.delete(path);
    done.add(path);
  };
  for (const path of files) if (!done.has(path)) visit(path);
  return [...cycles.values()];
}

// Imports go one way (e.g. cli.ts → commands/* → exitCodes.ts, commandArgs.ts): a circle makes
// module initialisation order matter and the layers impossible to read apart.
describe("no import cycles", () => {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const files = ["src", "operators"].flatMap((dir) => sources(join(root, dir)));

  it("no cycle among the relative imports of src/ and operators/", () => {
    expect(importCycles(files, root)).toEqual([]);
  });
});
