// What one triage decision costs as a conversation's dedupe window fills (issue 18, item 3): `admit`
// in one process, no I/O, at 10, 1,000 and 10,000 distinct proactive ids per window (the default
// one-hour window; at most 1,000 are remembered). Each decision is a new id on the state the last
// returned, the window sliding, so each drops an expired id and remembers the new one — the steady
// state of a busy conversation. A cell is the median of `TRIAGE_BATCHES` timed batches, each
// continuing the chain for `TRIAGE_BATCH_MS` ms. O(1) per decision keeps the row flat.
import { admit } from "../operators/triage/admit.js";
import { unpackSeen } from "../operators/triage/seenIds.js";
import { settingsFromConfig } from "../operators/triage/triageSettings.js";
import type { TriageState } from "../operators/triage/triageState.js";
import { emit, note, quick, sized } from "./lib/benchEnv.js";
import { median, round } from "./lib/stats.js";
import { TRIAGE_CONFIG } from "./lib/turnstreamIngress.js";

const IDS = quick ? [10, 1_000] : [10, 1_000, 10_000];
const batches = sized("TRIAGE_BATCHES", 7, 3);
const batchMs = sized("TRIAGE_BATCH_MS", 50, 10);
// The ingress benchmarks' rules: 15-minute cooldown, 8 a day, one-hour duplicate window.
const settings = settingsFromConfig(TRIAGE_CONFIG);
const windowMs = settings.dedupeWindowSecs * 1000;
const start = Date.parse("2026-08-25T12:00:00Z");

interface Row {
  readonly idsPerWindow: number;
  readonly remembered: number;
  readonly microsPerAdmit: number;
}

function measure(idsPerWindow: number): Row {
  const gapMs = windowMs / idsPerWindow;
  let state: TriageState | undefined;
  let nowMs = start;
  let next = 0;
  const decide = () => {
    state = admit(state, `gmail-thread-${(0x18f2c0000 + next++).toString(16)}`, settings, nowMs).state;
    nowMs += gapMs;
  };
  // Fill the window (and run past it once), so every timed decision also expires one id.
  while (next < idsPerWindow + 100) decide();
  const perCall: number[] = [];
  for (let batch = 0; batch < batches; batch++) {
    let calls = 0;
    const started = performance.now();
    let elapsed = 0;
    do {
      decide();
      calls += 1;
      elapsed = performance.now() - started;
    } while (elapsed < batchMs);
    perCall.push((elapsed * 1000) / calls);
  }
  return { idsPerWindow, remembered: unpackSeen(state?.seen)?.length ?? 0, microsPerAdmit: round(median(perCall), 3) };
}

const rows = IDS.map(measure);
for (const row of rows) note(`${row.idsPerWindow} ids per window (${row.remembered} remembered): ${row.microsPerAdmit} µs per admit`);
const first = rows[0]?.microsPerAdmit ?? 0;
const last = rows.at(-1)?.microsPerAdmit ?? 0;

emit({
  benchmark: "triage-admit",
  unit: "µs/admit",
  windowSecs: settings.dedupeWindowSecs,
  batches,
  batchMs,
  rows,
  // O(1) keeps this near 1; O(remembered ids) makes it ~the ratio of ids remembered (100× here).
  growth: round(last / Math.max(first, Number.MIN_VALUE), 2),
});
