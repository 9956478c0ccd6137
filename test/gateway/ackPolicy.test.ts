import { describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import type { PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";
import { ackPolicy } from "../../src/gateway/ackPolicy.js";

const message = (command?: OutboundMessage["command"]): OutboundMessage => ({
  reply_to: "evt-1",
  platform: "telegram",
  channel: { id: "c" },
  content: { type: "text", text: "x" },
  ...(command === undefined ? {} : { command }),
});

const caps = (over: Partial<PlatformCapabilities>): PlatformCapabilities => ({
  sendAck: false,
  editAck: false,
  deleteAck: false,
  supportsTargetMessageId: false,
  supportsReactions: false,
  supportsAttachmentMaterialization: false,
  supportsConversationRegistry: false,
  supportsPersistentConversationSend: false,
  canEdit: false,
  canDelete: false,
  streamingMode: "disabled",
  showStreamingPlaceholder: false,
  messageLimit: 4096,
  messageLimitUnit: "characters",
  statusBackend: "none",
  ...over,
});

describe("ackPolicy", () => {
  it("messages: asked when wanted in legacy mode, required where the hello says send_ack, unasked (noted) where it cannot be asked", () => {
    expect(ackPolicy(message(), undefined, false)).toEqual({ kind: "write", unacked: false });
    expect(ackPolicy(message(), undefined, true)).toEqual({ kind: "ask", required: false });
    expect(ackPolicy(message(), caps({ sendAck: true }), false)).toEqual({ kind: "ask", required: true });
    expect(ackPolicy(message(), caps({}), true)).toEqual({ kind: "write", unacked: true });
    expect(ackPolicy(message("create_topic"), undefined, false)).toEqual({ kind: "ask", required: true });
    expect(ackPolicy(message("create_topic"), caps({}), false)).toEqual({ kind: "ask", required: true });
  });

  it("typing: never written to a gateway, in legacy mode or after any hello", () => {
    for (const capabilities of [undefined, caps({}), caps({ sendAck: true, supportsReactions: true, canEdit: true })]) {
      expect(ackPolicy(message("typing"), capabilities, true)).toEqual({ kind: "skip" });
    }
  });

  it("reactions: written, never acked; skipped after a hello without supports_reactions", () => {
    expect(ackPolicy(message("add_reaction"), undefined, true)).toEqual({ kind: "write", unacked: false });
    expect(ackPolicy(message("remove_reaction"), caps({ supportsReactions: true, sendAck: true }), true)).toEqual({ kind: "write", unacked: false });
    expect(ackPolicy(message("add_reaction"), caps({}), true)).toEqual({ kind: "skip" });
  });

  it("edits and deletes: written in legacy mode, acked where edit_ack / delete_ack, refused where the platform cannot", () => {
    expect(ackPolicy(message("edit_message"), undefined, true)).toEqual({ kind: "write", unacked: false });
    expect(ackPolicy(message("edit_message"), caps({ canEdit: true, editAck: true }), false)).toEqual({ kind: "ask", required: true });
    expect(ackPolicy(message("delete_message"), caps({ canDelete: true, sendAck: true }), true)).toEqual({ kind: "write", unacked: false });
    expect(ackPolicy(message("edit_message"), caps({ sendAck: true }), true)).toEqual({ kind: "unsupported", detail: "the platform cannot edit messages" });
    expect(ackPolicy(message("delete_message"), caps({ canEdit: true }), true)).toEqual({ kind: "unsupported", detail: "the platform cannot delete messages" });
  });
});
