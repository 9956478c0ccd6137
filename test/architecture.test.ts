import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
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
