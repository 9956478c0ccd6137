// The `msg` of each line the delivery paths write. Operators in operators/delivery return what
// happened (reports, plans, outcomes); these lines say it. Each string is stable: alerts and
// tests match on it (docs/logging.md), so change one only with a changelog note.

// Text path
/** Warn (`reason: "empty_turn"`) when the turn ended `end_turn` with 0 output tokens (`silentFailure`). */
export const SILENT_FAILURE_LOG = "agent returned empty turn (0 output tokens) — likely provider/model/auth failure";
/** Info (`reason`) when a silent reply sends nothing. */
export const SILENT_REPLY_LOG = "silent reply: nothing delivered";

/** Info (`reason: "cancelled"`) when a turn cancelled with `/cancel` (or superseded under `interrupt`) delivers nothing more. */
export const CANCELLED_TURN_LOG = "turn cancelled; nothing more delivered";

// Block streaming
/** Debug (`platform`, `delivered`) when a block-streamed text reply went out in blocks. */
export const BLOCKS_DELIVERED_LOG = "text reply delivered in blocks";

// Structured mode
/** Warn (`reason: "parse_error"`, `error`, `policy`) when the turn's output did not parse (`parseFailure`). */
export const STRUCTURED_PARSE_FAILED_LOG = "structured turn did not parse";
/** Info (`tool`) for a `next: tool` envelope (`toolProposal`); the tool is never executed. */
export const TOOL_PROPOSAL_LOG = "structured turn proposed a tool call; not executed in this phase";
/** Warn (`bubbles`) when `silent` wins over bubbles the envelope declared (`silenced`). */
export const SILENT_WITH_MESSAGES_LOG = "structured turn declared next.type=silent with non-empty messages; sending nothing";
/** Info (`reason: "tool_over_envelope"`) when a turn both called the `reply` tool and wrote an envelope: the tool's reply is delivered. */
export const TOOL_OVER_ENVELOPE_LOG = "structured turn called the reply tool and also wrote an envelope; delivering the tool's reply";
/** Info (`next`) when the plan has no bubble. */
export const DELIVERED_NOTHING_LOG = "structured turn delivered nothing";
export const PROACTIVE_NOT_CALLED_LOG = "proactive turn did not call the reply tool; nothing delivered";
/** Debug (`platform`, `bubbles`) when every bubble was acked. */
export const STRUCTURED_DELIVERED_LOG = "structured turn delivered";
/** Error (`reason: "send_failed"`, `platform`, `bubble`, `delivered`, `total`) when a bubble's send failed. */
export const STRUCTURED_SEND_FAILED_LOG = "structured bubble send failed; abandoning the rest of the turn";

// Sequential mode
/** Warn (`reason: "mode_not_sequential"`, `mode`), once per turn, for `openab_message` outside sequential mode. */
export const SEQUENTIAL_MODE_OFF_WARNING =
  "received a sequential message event but [delivery] mode is not `sequential`; ignoring it (the turn's text is delivered normally at the end)";
/** Warn (`reason: "max_bubbles"`, `dropped`, `bubble`) when the turn reached `max_bubbles` (`capped`). */
export const SEQUENTIAL_CAPPED_WARNING = "sequential turn reached max_bubbles; dropping the rest";
/** Error (`reason: "send_failed"`, `bubble`, `delivered`, `err`) when a bubble's send failed (`failedBubbleId`). */
export const SEQUENTIAL_SEND_FAILED_LOG = "sequential bubble send failed; abandoning the rest of the turn";
/** Info (`reason: "no_bubbles"`) when no bubble was attempted and the turn takes the text path. */
export const SEQUENTIAL_FALLBACK_LOG = "sequential turn emitted no bubbles; falling back to the text path";
/** Info (`delivered`, `capped: false`) when a sequential turn succeeded. */
export const SEQUENTIAL_DELIVERED_LOG = "sequential turn delivered";
/** Info (`delivered`, `capped: true`) when a capped turn is reported as a success. */
export const SEQUENTIAL_CAPPED_LOG = "sequential turn was capped, not failed";
/** Warn (`reason`: `too_big`, `not_found`'s finer `outside`/`symlink`/`not_a_file`/`unreadable`, `invalid`, `too_many`, `store_failed`, `file_too_large`; `platform`, `size`) when a file the agent made does not reach the chat as a file. */
export const FILE_NOT_SENT_LOG = "agent file not sent";
/** Warn (`reason: "file_cleanup_failed"`) when a turn's stored files could not be removed from the bus's file store (its max age removes them later). */
export const FILE_CLEANUP_FAILED_LOG = "turn files not removed from the file store";
