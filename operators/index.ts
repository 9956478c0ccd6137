// The public surface of `turnstream/operators`: pure operators and functions, no I/O, time only
// from the scheduler. Everything not listed here or in a folder's index.ts is internal.

// ingress: frames in, events through the skip rules and the trust gate, prompts out
export { skipEvents, skipReason, type SkipConfig, type SkipOptions, type SkipReason } from "./ingress/skipEvent.js";
export { isGroupChannel } from "./ingress/groupChannel.js";
export { trustDecision, trustGate, type TrustConfig, type TrustDecision, type TrustVerdict } from "./ingress/trustGate.js";
export { cancelReply, resetReply, slashCommand, type SlashCommand } from "./ingress/slashCommand.js";
export { InboundDedupe, inboundDedupeKey, type Claim } from "./ingress/inboundDedupe.js";
export { debounceInbound, debounceKey, type DebounceInboundOptions } from "./ingress/debounceInbound.js";
export { isControlCommand } from "./ingress/controlCommand.js";
export * from "./ingress/frames/index.js";
export * from "./ingress/prompt/index.js";
export type {
  GatewayAttachment,
  GatewayChannel,
  GatewayContent,
  GatewayEvent,
  GatewaySender,
  ButtonTap,
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
export type { ContentBlock, PromptCapabilities } from "./dispatch/contentBlock.js";

// delivery: a turn's events into messages
export { collectTranscript } from "./delivery/collectTranscript.js";
export { reduceTranscript, type ToolEntry, type TranscriptFile, type TurnTranscript } from "./delivery/turnTranscript.js";
export { withReplyCalls } from "./delivery/withReplyCalls.js";
export type { OutboundAttachment, OutboundChoice, OutboundCommand, OutboundMessage, SendReceipt } from "./delivery/outboundMessage.js";
export type {
  AgentEvent,
  AgentFile,
  AgentFileEvent,
  AgentFileOutcome,
  AgentFileSource,
  FileReadyEvent,
  FileRefusal,
  AgentTextEvent,
  AgentThoughtEvent,
  ConfigUpdateEvent,
  OpenabMessageEvent,
  PlanEntry,
  PlanEvent,
  QuestionEvent,
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
export * from "./delivery/envelope/index.js";
export * from "./delivery/blocks/index.js";
export * from "./delivery/flow/index.js";
export * from "./delivery/status/index.js";
export * from "./delivery/text/index.js";
export * from "./delivery/files/index.js";
export * from "./delivery/sequential/index.js";

// cron: OpenAB's schedule syntax, when a job fires in its timezone, and the minutes that drive it
export * from "./cron/index.js";

// ask: questions put to the person in the chat (permission requests, the `ask` tool)
export * from "./ask/index.js";
