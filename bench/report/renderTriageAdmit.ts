import { numberAt } from "./benchResults.js";

const n = (value: number | undefined, digits = 0) => (value === undefined ? "—" : value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }));

/** The triage-admit table: µs per decision as the dedupe window fills; a flat row is O(1) per decision. */
export function renderTriageAdmit(triage: Record<string, unknown> | undefined): string[] {
  const rows = Array.isArray(triage?.rows) ? (triage.rows as Record<string, unknown>[]) : [];
  if (rows.length === 0) return [];
  const ids = (row: Record<string, unknown> | undefined) => n(numberAt(row, "idsPerWindow"));
  return [
    `### Triage decisions (µs per \`admit\`, a new id each, ${n(numberAt(triage, "windowSecs"))} s dedupe window sliding)`,
    "",
    `| Distinct ids per window | ${rows.map(ids).join(" | ")} | ${ids(rows.at(-1))} ÷ ${ids(rows[0])} |`,
    `|---|${rows.map(() => "---").join("|")}|---|`,
    `| Remembered | ${rows.map((row) => n(numberAt(row, "remembered"))).join(" | ")} | |`,
    `| µs per admit | ${rows.map((row) => n(numberAt(row, "microsPerAdmit"), 2)).join(" | ")} | ${n(numberAt(triage, "growth"), 2)}× |`,
    "",
    `Median of ${n(numberAt(triage, "batches"))} batches per cell, each continuing the chain of decisions for ${n(numberAt(triage, "batchMs"))} ms.`,
    "",
  ];
}
