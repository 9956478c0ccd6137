// The public surface of `turnstream/operators`: pure operators and functions, no I/O, time only
// from the scheduler. Everything not listed here is internal.

// ingress: frames in, events through the skip rules and the trust gate, prompts out
export { parseGatewayFrame, type FrameRejection, type GatewayFrame } from "./ingress/gatewayFrames.js";
export { responseOutcome, type GatewayResponse, type ResponseOutcome } from "./ingress/responseFrame.js";
export { resolveCapabilities, type GatewayHello, type PlatformCapabilities } from "./ingress/helloFrame.js";
export { skipEvents, skipReason, type SkipConfig, type SkipOptions, type SkipReason } from "./ingress/skipEvent.js";
export { isGroupChannel } from "./ingress/groupChannel.js";
export { trustDecision, trustGate, type TrustConfig, type TrustDecision, type TrustVerdict } from "./ingress/trustGate.js";
export { cancelReply, resetReply, slashCommand, type SlashCommand } from "./ingress/slashCommand.js";
export { senderContext } from "./ingress/senderContext.js";
export { InboundDedupe, inboundDedupeKey, type Claim } from "./ingress/inboundDedupe.js";
export { debounceInbound, debounceKey, type DebounceInboundOptions } from "./ingress/debounceInbound.js";
export { isControlCommand } from "./ingress/controlCommand.js";
export { packBatch, packPrompt } from "./ingress/packPrompt.js";
export { appendHistory, historyEntry, historyPrompt, withoutPacked, type HistoryEntry } from "./ingress/groupHistory.js";
export { HISTORY_MAX_BYTES, fitsHistoryBudget, historyEntryBytes, historyWithinBytes, type HistoryWithinBytes } from "./ingress/historyBudget.js";
export type {
  GatewayAttachment,
  GatewayChannel,
  GatewayContent,
  GatewayEvent,
  GatewaySender,
} from "./ingress/gatewayEvent.js";

// triage: proactive events pass cheap rules before they may wake an agent
export { triage, type TriageDecision, type TriageOptions } from "./triage/triage.js";
export { triageEvent, type TriageEventOptions } from "./triage/triageEvent.js";
export { triageNow } from "./triage/triageNow.js";
export { TriageConflictError } from "./triage/triageConflictError.js";
export { admit, type Admission } from "./triage/admit.js";
export { triageKey } from "./triage/triageKey.js";
export { parseQuietHours, quietHoursContain, type QuietHours } from "./triage/quietHours.js";
export { settingsFromConfig, type TriageSettings } from "./triage/triageSettings.js";
export { triageLogLine } from "./triage/triageLog.js";
export { sweepTriage } from "./triage/triageSweep.js";
export type { TriageState } from "./triage/triageState.js";
export type { TriageEntry, TriageStore } from "./triage/triageStore.js";
export type { TriageVerdict } from "./triage/triageVerdict.js";

// dispatch: keys, partitions, one turn at a time per key
export { serializeByKey } from "./dispatch/serializeByKey.js";
export { sessionLanes, type BatchBound, type DropPolicy, type LaneBatch, type QueueMode, type SessionLanesOptions } from "./dispatch/sessionLanes.js";
export { collectedPrompt, overflowNotice, summaryLine } from "./dispatch/queuedPrompt.js";
export { dispatchKey, type ProcessingMode } from "./dispatch/dispatchKey.js";
export { batchTokens } from "./dispatch/batchTokens.js";
export { sessionKey, sessionKeyParts, type SessionKeyParts } from "./dispatch/sessionKey.js";
export { compositeKey, compositeKeyParts } from "./dispatch/compositeKey.js";
export { partitionOf } from "./dispatch/partitionOf.js";
export type { ContentBlock } from "./dispatch/contentBlock.js";

// delivery: a turn's events into messages
export { collectTranscript } from "./delivery/collectTranscript.js";
export { reduceTranscript, type ToolEntry, type TurnTranscript } from "./delivery/turnTranscript.js";
export { parseOutputDirectives, type OutputDirectives } from "./delivery/outputDirectives.js";
export { composeStreamingDisplay, renderStreamingToolSummary, renderToolSummary, toolTitleText, type ToolDisplay } from "./delivery/toolSummary.js";
export { preview, STREAMING_EDIT_INTERVAL_MS, STREAMING_PLACEHOLDER, streamingEdits, type StreamingEditsOptions, type StreamingStep } from "./delivery/streamingEdits.js";
export { concatLatest } from "./delivery/concatLatest.js";
export { ACTIVITY_EDIT_INTERVAL_MS, ACTIVITY_MAX_ENTRIES, activityMessage, type ActivityOptions, type ActivityStep } from "./delivery/activityMessage.js";
export { toolActivityLine, type ToolCallInfo } from "./delivery/toolActivity.js";
export { firstScalar, previewText, type PreviewPlaces, type Truncation } from "./delivery/toolPreview.js";
export { redactSecrets, type Redact } from "./delivery/redactSecrets.js";
export { redactedText } from "./delivery/redactedText.js";
export { planTextReply, type TextReplyPlan } from "./delivery/textReply.js";
export { splitMessage } from "./delivery/splitMessage.js";
export { silentReply } from "./delivery/silentReply.js";
export { paceBubbles } from "./delivery/paceBubbles.js";
export { BlockChunker, type BlockChunkerSettings, type BreakPreference, type FenceSplit } from "./delivery/blockChunker.js";
export { textBlocks, type BlockBreak, type TextBlocksOptions, type TextBlockStep } from "./delivery/textBlocks.js";
export { coalesceBlocks, coalesceJoiner, type BlockJoiner, type CoalesceOptions } from "./delivery/coalesceBlocks.js";
export { humanDelayRange, humanGap, type HumanDelay } from "./delivery/humanDelay.js";
export { quoteFor, type ReplyToMode } from "./delivery/replyThreading.js";
export { hasUnresolvedModelVariable, prefixProblem, prefixRoom, resolveResponsePrefix, shortModelName, startsMarkdownBlock, withResponsePrefix, type PrefixVariables } from "./delivery/responsePrefix.js";
export {
  bucketFull,
  departure,
  earliestDeparture,
  heldUntil,
  isBucketState,
  MAX_WINDOW,
  takeToken,
  windowOf,
  type BucketLimit,
  type BucketState,
  type Departure,
} from "./delivery/tokenBucket.js";
export { rateLimited, type BucketRef, type RateLimitedOptions } from "./delivery/rateLimited.js";
export { MemoryRateBuckets, takeFrom, type RateBuckets, type Take, type TakeMode } from "./delivery/rateBuckets.js";
export { sendClassOf, SendShaper, type PlatformRateLimits, type SendClass, type SendShaperOptions, type ShapedWait } from "./delivery/sendShaper.js";
export { SEND_KINDS, sendKind, type SendKind } from "./delivery/sendKind.js";
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
} from "./delivery/statusReactions.js";
export { parseEnvelope, type EnvelopeLimits, type EnvelopeResult } from "./delivery/envelope.js";
export type { EnvelopeError } from "./delivery/envelopeError.js";
export { findEnvelopeSpan } from "./delivery/findEnvelopeSpan.js";
export { stripEnvelope } from "./delivery/stripEnvelope.js";
export { planStructuredBubbles, type OnParseError, type StructuredBubblesPlan, type StructuredOptions } from "./delivery/structuredBubbles.js";
export { bubbleMessages, planStructuredReply, type StructuredReplyPlan } from "./delivery/envelopeReply.js";
export { REPLY_TOOL_BUBBLE_ID, sequentialBubbles, warnIgnoredBubbles, type SequentialBubblesOptions, type SequentialReport } from "./delivery/sequentialBubbles.js";
export { withReplyCalls } from "./delivery/withReplyCalls.js";
export { sequentialOutcome, type SequentialOutcome } from "./delivery/sequentialOutcome.js";
export type { OutboundCommand, OutboundMessage, SendReceipt } from "./delivery/outboundMessage.js";
export type {
  AgentEvent,
  AgentTextEvent,
  AgentThoughtEvent,
  ConfigUpdateEvent,
  OpenabMessageEvent,
  PlanEntry,
  PlanEvent,
  ReplyBubblesEvent,
  ReplyBubblesOutcome,
  ReplyPlanEvent,
  SessionResetEvent,
  TokenUsage,
  ToolDoneEvent,
  ToolStartEvent,
  ToolStatus,
  ToolUpdateEvent,
  TurnEndEvent,
  UnknownUpdateEvent,
} from "./delivery/agentEvent.js";
