import type { ConfigInput } from "../config/index.js";

/** One row of OpenAB's bubble-test table (delivery-and-triage.md §14.3): what to send, what must arrive. */
export interface BubbleScenario {
  readonly name: string;
  readonly delivery: NonNullable<ConfigInput["delivery"]>;
  readonly agentEnv?: Record<string, string>;
  /** The message texts the gateway must receive, in order. */
  readonly expected: readonly string[];
  /**
   * Each gap between consecutive messages must be at least this (ms); the upper bound is generous.
   * Bubbles leave exactly `bubble_delay_ms` apart (asserted in virtual time); arrivals jitter by a
   * few ms either way on a busy machine, so the floor sits well below the delay.
   */
  readonly minGapMs?: number;
  /** Whether the turn must end failed (seqhalf) rather than complete. */
  readonly turnFails?: boolean;
}

const structured = { mode: "structured", bubble_delay_ms: 400 } as const;
const sequential = { mode: "sequential", bubble_delay_ms: 0 } as const;

export const bubbleScenarios: readonly BubbleScenario[] = [
  { name: "envelope", delivery: structured, expected: ["on it", "your flight moved to 8pm", "gate B12"], minGapMs: 350 },
  { name: "multiline", delivery: structured, expected: ["alpha\nbeta\ngamma"] },
  { name: "silent", delivery: structured, expected: [] },
  { name: "prose", delivery: structured, expected: ["hey what's up"] },
  { name: "broken", delivery: structured, expected: ["sorry, one sec"] },
  { name: "toolong", delivery: structured, expected: ["⚠️ something went wrong composing that reply"] },
  { name: "sequential", delivery: sequential, expected: ["on it", "checking your mail now", "your flight moved to 8pm\ngate B12"] },
  {
    name: "seqslow",
    delivery: sequential,
    expected: ["on it", "checking your mail now", "your flight moved to 8pm\ngate B12"],
    minGapMs: 1_900,
  },
  {
    name: "seqhalf",
    delivery: sequential,
    expected: ["on it", "checking your mail now", "⚠️ sequential turn failed after 2 bubble(s): JSON-RPC error -32000: simulated agent failure"],
    turnFails: true,
  },
  { name: "text", delivery: { mode: "text" }, expected: ["plain text reply, one message"] },
];
