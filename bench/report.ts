// Regenerates the results section of docs/benchmarks.md from bench/results.json without running
// anything (after editing the renderer, say): node dist-bench/bench/report.js
import { note, quick } from "./lib/benchEnv.js";
import { readResults, resultsPath, writeReport } from "./report/writeReport.js";

const results = readResults(quick);
if (results === undefined) throw new Error(`no ${resultsPath(quick)}: run npm run bench first`);
note(`wrote ${writeReport(results)}`);
