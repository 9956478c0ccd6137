// `turnstream/agent`: the agent-side kit. A model replies through a `reply` tool whose input schema
// is the envelope, so the provider validates it; code renders the envelope or sends the bubbles.
// It asks the person in the chat through `ask`, forwarded to the session's `turnstream` MCP server.
export {
  REPLY_TOOL_NAME,
  bubblesFromToolInput,
  parseReplyArguments,
  readReplyInput,
  replyInputSchema,
  replyModes,
  replyNexts,
  replyTool,
  replyToolSchema,
  type ChatTool,
  type ReplyInput,
  type ReplyMode,
  type ReplyNext,
  type ReplyToolOptions,
} from "./replyTool.js";
export {
  TURN_ENVELOPE_SCHEMA,
  UNKNOWN_NEXT_WARNING,
  renderEnvelope,
  wrapPlainText,
  type RenderOptions,
  type RenderedEnvelope,
} from "./renderEnvelope.js";
export { replyPromptAppendix } from "./replyPrompt.js";
export { ASK_TOOL_DESCRIPTION, ASK_TOOL_NAME, askAnswers, askInputSchema, askQuestions, askTool, MAX_ASK_QUESTIONS, type AskAnswer, type AskInput } from "./askTool.js";
export { ASK_IDLE_TIMEOUT_MS, forwardAsk, readAskArguments, type ForwardAskOptions } from "./askCall.js";
export {
  TURNSTREAM_SERVER_NAME,
  connectTurnstream,
  stdioTransportOf,
  turnstreamEntry,
  type TurnstreamServer,
  type TurnstreamStdioEntry,
} from "./turnstreamServer.js";
export {
  BubbleSink,
  bubbleToolResult,
  openabMessageUpdate,
  type BubbleDelivery,
  type BubbleSinkOptions,
  type SendNotification,
  type SentBubble,
} from "./bubbleSink.js";
export { AgentConnection, type AgentConnectionOptions } from "./agentConnection.js";
export { serveReferenceAgent, type ReferenceAgent, type ReferenceAgentOptions } from "./referenceAgent.js";
export { agentSettingsFrom, type AgentFlags, type AgentSettings } from "./agentSettings.js";
export { chatCompletions, type AssistantMessage, type ChatMessage, type ChatModel, type ToolCall } from "./chatCompletions.js";
export { AgentConnectionClosedError, AgentSettingsError, ModelRequestError, ReplyInputError, TurnstreamServerError, type ReplyInputProblem } from "./errors.js";
export type { TurnEnvelope } from "../../operators/delivery/envelope/envelopeShape.js";
