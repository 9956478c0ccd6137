// The public surface of `turnstream/operators`: pure operators and functions, no I/O, time only
// from the scheduler. Everything not listed here is internal.
export { serializeByKey } from "./dispatch/serializeByKey.js";
export { sessionKey } from "./dispatch/sessionKey.js";
export { partitionOf } from "./dispatch/partitionOf.js";
export type {
  GatewayAttachment,
  GatewayChannel,
  GatewayContent,
  GatewayEvent,
  GatewaySender,
} from "./ingress/gatewayEvent.js";
export type { ContentBlock } from "./dispatch/contentBlock.js";
export type { OutboundCommand, OutboundMessage, SendReceipt } from "./delivery/outboundMessage.js";
export type {
  AgentEvent,
  AgentTextEvent,
  AgentThoughtEvent,
  ConfigUpdateEvent,
  OpenabMessageEvent,
  PlanEntry,
  PlanEvent,
  SessionResetEvent,
  TokenUsage,
  ToolDoneEvent,
  ToolStartEvent,
  ToolStatus,
  ToolUpdateEvent,
  TurnEndEvent,
  UnknownUpdateEvent,
} from "./delivery/agentEvent.js";
