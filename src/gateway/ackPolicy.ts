import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import type { PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";

/** How one frame goes to the gateway. */
export type AckPolicy =
  /** Not sent at all: a reaction the platform cannot show. */
  | { readonly kind: "skip" }
  /** Refused before it is written: the hello says the platform cannot do it. */
  | { readonly kind: "unsupported"; readonly detail: string }
  /** Written without a `request_id`, settled once the socket took it; `unacked` notes ordering that rests on the socket. */
  | { readonly kind: "write"; readonly unacked: boolean }
  /** Written with a `request_id`; `required` acks fail the send when missing (a legacy one counts as sent). */
  | { readonly kind: "ask"; readonly required: boolean };

/**
 * The ack rule for one outbound frame, given the platform's negotiated capabilities (undefined in
 * legacy mode) and whether the caller wants acks (bubble modes, streaming, a shared bus):
 * - typing: never written (OpenAB's protocol has no such command);
 * - reactions: fire-and-forget, as upstream, and after a hello only where `supports_reactions`;
 * - edits and deletes: refused where the hello says the platform cannot, acked only where it says
 *   so (`edit_ack` / `delete_ack`), elsewhere written and trusted, as upstream;
 * - messages: acked when the hello requires it (`send_ack`), or when wanted and the gateway can be
 *   asked — a negotiated gateway without `send_ack` cannot, and order then rests on the socket;
 * - topics: always asked, and required, as the protocol has it: what a `create_topic` is for is the
 *   `thread_id` its answer carries.
 */
export function ackPolicy(message: OutboundMessage, capabilities: PlatformCapabilities | undefined, wantAck: boolean): AckPolicy {
  switch (message.command) {
    case "typing":
    case "answer_tap":
    case "notice":
      // A native adapter's command: OpenAB's protocol has none, so a gateway never gets one
      // (the capability gate keeps it away; this keeps it from ever becoming an empty message).
      return { kind: "skip" };
    case "add_reaction":
    case "remove_reaction":
      return capabilities !== undefined && !capabilities.supportsReactions ? { kind: "skip" } : { kind: "write", unacked: false };
    case "edit_message":
    case "delete_message": {
      const edit = message.command === "edit_message";
      if (capabilities !== undefined && !(edit ? capabilities.canEdit : capabilities.canDelete)) {
        return { kind: "unsupported", detail: `the platform cannot ${edit ? "edit" : "delete"} messages` };
      }
      const acked = capabilities !== undefined && (edit ? capabilities.editAck : capabilities.deleteAck);
      return acked ? { kind: "ask", required: true } : { kind: "write", unacked: false };
    }
    case "create_topic":
      return { kind: "ask", required: true };
    default: {
      const required = capabilities?.sendAck === true;
      const askable = capabilities === undefined || required;
      if (required || (wantAck && askable)) return { kind: "ask", required };
      return { kind: "write", unacked: wantAck && !askable };
    }
  }
}
