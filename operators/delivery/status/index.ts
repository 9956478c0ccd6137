// Live status: what a user sees while a turn runs (reactions, edits, tool activity).
// The public surface of delivery/status/: everything else in the folder is internal.
export { composeStreamingDisplay, renderStreamingToolSummary, renderToolSummary, toolTitleText, type ToolDisplay } from "./toolSummary.js";
export { preview, STREAMING_EDIT_INTERVAL_MS, STREAMING_PLACEHOLDER, streamingEdits, type StreamingEditsOptions, type StreamingStep } from "./streamingEdits.js";
export { concatLatest } from "./concatLatest.js";
export { TYPING_RENEW_MS, typingIndicator, type TypingIndicatorOptions } from "./typingIndicator.js";
export { ACTIVITY_EDIT_INTERVAL_MS, ACTIVITY_MAX_ENTRIES, activityMessage, type ActivityOptions, type ActivityStep } from "./activityMessage.js";
export { toolActivityLine, type ToolCallInfo } from "./toolActivity.js";
export { firstScalar, previewText, type PreviewPlaces, type Truncation } from "./toolPreview.js";
export {
  DONE_FACES,
  STALL_HARD_EMOJI,
  STALL_SOFT_EMOJI,
  statusReactions,
  toolReaction,
  type ReactionChange,
  type ReactionEmojis,
  type ReactionSignal,
  type StatusReactionsOptions,
} from "./statusReactions.js";
