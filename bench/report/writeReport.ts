import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { packageRoot } from "../../src/version.js";
import type { BenchResults } from "./benchResults.js";
import { renderResults, replaceResults } from "./renderResults.js";

export const root = packageRoot();
/** A quick run's results stay in the (ignored) build directory: smoke numbers never reach bench/ or docs/. */
export const resultsPath = (quick: boolean) => (quick ? join(root, "dist-bench", "results.quick.json") : join(root, "bench", "results.json"));
export const docPath = join(root, "docs", "benchmarks.md");
export const quickDocPath = join(root, "dist-bench", "benchmarks.quick.md");

export function readResults(quick: boolean): BenchResults | undefined {
  const path = resultsPath(quick);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as BenchResults) : undefined;
}

/** Writes the results file and regenerates the results section of the doc (a quick run: a copy under dist-bench/). */
export function writeReport(results: BenchResults): string {
  writeFileSync(resultsPath(results.quick), `${JSON.stringify(results, null, 2)}\n`);
  const doc = readFileSync(docPath, "utf8");
  const target = results.quick ? quickDocPath : docPath;
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, replaceResults(doc, renderResults(results)));
  return target;
}
