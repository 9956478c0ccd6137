// Prompt: what an event becomes in the agent's prompt.
// The public surface of ingress/prompt/: everything else in the folder is internal.
export { senderContext } from "./senderContext.js";
export { packBatch, packPrompt } from "./packPrompt.js";
export { appendHistory, historyEntry, historyPrompt, withoutPacked, type HistoryEntry } from "./groupHistory.js";
export { HISTORY_MAX_BYTES, fitsHistoryBudget, historyEntryBytes, historyWithinBytes, type HistoryWithinBytes } from "./historyBudget.js";
