import { describe, expect, it } from "vitest";
import * as messages from "../../../src/turn/delivery/deliveryLogMessages.js";

// Operators and alerts match on these strings (docs/logging.md): each is pinned byte for byte.
describe("delivery log messages", () => {
  it("are upstream's and turnstream's documented strings, exactly", () => {
    expect({ ...messages }).toStrictEqual({
      SILENT_FAILURE_LOG: "agent returned empty turn (0 output tokens) — likely provider/model/auth failure",
      SILENT_REPLY_LOG: "silent reply: nothing delivered",
      BLOCKS_DELIVERED_LOG: "text reply delivered in blocks",
      CANCELLED_TURN_LOG: "turn cancelled; nothing more delivered",
      STRUCTURED_PARSE_FAILED_LOG: "structured turn did not parse",
      TOOL_PROPOSAL_LOG: "structured turn proposed a tool call; not executed in this phase",
      TOOL_OVER_ENVELOPE_LOG: "structured turn called the reply tool and also wrote an envelope; delivering the tool's reply",
      SILENT_WITH_MESSAGES_LOG: "structured turn declared next.type=silent with non-empty messages; sending nothing",
      DELIVERED_NOTHING_LOG: "structured turn delivered nothing",
      PROACTIVE_NOT_CALLED_LOG: "proactive turn did not call the reply tool; nothing delivered",
      STRUCTURED_DELIVERED_LOG: "structured turn delivered",
      STRUCTURED_SEND_FAILED_LOG: "structured bubble send failed; abandoning the rest of the turn",
      SEQUENTIAL_MODE_OFF_WARNING:
        "received a sequential message event but [delivery] mode is not `sequential`; ignoring it (the turn's text is delivered normally at the end)",
      SEQUENTIAL_CAPPED_WARNING: "sequential turn reached max_bubbles; dropping the rest",
      SEQUENTIAL_SEND_FAILED_LOG: "sequential bubble send failed; abandoning the rest of the turn",
      SEQUENTIAL_FALLBACK_LOG: "sequential turn emitted no bubbles; falling back to the text path",
      SEQUENTIAL_DELIVERED_LOG: "sequential turn delivered",
      SEQUENTIAL_CAPPED_LOG: "sequential turn was capped, not failed",
      FILE_NOT_SENT_LOG: "agent file not sent",
      FILE_CLEANUP_FAILED_LOG: "turn files not removed from the file store",
    });
  });
});
