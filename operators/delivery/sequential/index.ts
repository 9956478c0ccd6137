// Sequential delivery: bubbles as the agent decides them.
// The public surface of delivery/sequential/: everything else in the folder is internal.
export { REPLY_TOOL_BUBBLE_ID, sequentialBubbles, type SequentialBubblesOptions, type SequentialReport } from "./sequentialBubbles.js";
export { warnIgnoredBubbles } from "./warnIgnoredBubbles.js";
export { sequentialOutcome, type SequentialOutcome } from "./sequentialOutcome.js";
