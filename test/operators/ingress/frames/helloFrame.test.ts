import { describe, expect, it } from "vitest";
import { parseGatewayFrame } from "../../../../operators/ingress/frames/gatewayFrames.js";
import {
  GATEWAY_PROTOCOL_VERSION,
  type GatewayHello,
  type PlatformCapabilities,
  resolveCapabilities,
} from "../../../../operators/ingress/frames/helloFrame.js";

// Protocol §6.1.
const example = {
  schema: "openab.gateway.hello.v1",
  protocol_version: 1,
  capabilities: {
    teams: {
      send_ack: true,
      edit_ack: true,
      delete_ack: true,
      supports_target_message_id: true,
      supports_reactions: false,
      can_edit: true,
      can_delete: true,
      streaming_mode: "disabled",
      show_streaming_placeholder: true,
      message_limit: { unit: "characters", max: 4096 },
      status_backend: "none",
    },
  },
  topology: { active_consumers: 1, supported: true, delivery_mode: "best_effort_broadcast" },
};

const FAIL_CLOSED: PlatformCapabilities = {
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
  typingIndicator: false,
  outboundFiles: false,
};

const STREAMING = { streaming: true, streamingPlaceholder: true };

function parseHello(frame: unknown): GatewayHello {
  const parsed = parseGatewayFrame(JSON.stringify(frame), 1 << 20);
  if (parsed.kind !== "hello") throw new Error(`not a hello: ${JSON.stringify(parsed)}`);
  return parsed.hello;
}

const helloWith = (caps: Record<string, unknown>) =>
  parseHello({ schema: "openab.gateway.hello.v1", protocol_version: 1, capabilities: { telegram: caps } });

describe("hello.v1", () => {
  it("parses the §6.1 example and resolves its platform", () => {
    const hello = parseHello(example);
    expect(hello.protocol_version).toBe(GATEWAY_PROTOCOL_VERSION);
    expect(hello.topology).toStrictEqual({ active_consumers: 1, supported: true, delivery_mode: "best_effort_broadcast" });
    expect(resolveCapabilities(hello, "teams", STREAMING)).toStrictEqual({
      ...FAIL_CLOSED,
      sendAck: true,
      editAck: true,
      deleteAck: true,
      supportsTargetMessageId: true,
      canEdit: true,
      canDelete: true,
      showStreamingPlaceholder: true,
    });
  });

  it("gives a platform the hello does not list the fail-closed defaults", () => {
    expect(resolveCapabilities(parseHello(example), "telegram", STREAMING)).toStrictEqual(FAIL_CLOSED);
    expect(resolveCapabilities(parseHello({ schema: "openab.gateway.hello.v1", protocol_version: 1 }), "teams", STREAMING)).toStrictEqual(
      FAIL_CLOSED,
    );
  });

  it("gives every field the hello leaves out its default", () => {
    expect(resolveCapabilities(helloWith({ send_ack: true }), "telegram", STREAMING)).toStrictEqual({ ...FAIL_CLOSED, sendAck: true });
    expect(resolveCapabilities(helloWith({ can_edit: null }), "telegram", STREAMING)).toStrictEqual(FAIL_CLOSED);
  });

  it("matches platforms case-insensitively", () => {
    const hello = parseHello({ ...example, capabilities: { Teams: { send_ack: true } } });
    expect(resolveCapabilities(hello, "TEAMS", STREAMING).sendAck).toBe(true);
  });

  it("reads every other advertised field", () => {
    const hello = helloWith({
      supports_attachment_materialization: true,
      supports_conversation_registry: true,
      supports_persistent_conversation_send: true,
      supports_reactions: true,
      streaming_mode: "edit",
      status_backend: "typing",
    });
    expect(resolveCapabilities(hello, "telegram", STREAMING)).toStrictEqual({
      ...FAIL_CLOSED,
      supportsAttachmentMaterialization: true,
      supportsConversationRegistry: true,
      supportsPersistentConversationSend: true,
      supportsReactions: true,
      streamingMode: "edit",
      statusBackend: "typing",
    });
  });

  it("never turns on the typing indicator: the gateway protocol has no typing command, whatever the hello says", () => {
    const hello = helloWith({ status_backend: "typing", typing_indicator: true, typingIndicator: true });
    expect(resolveCapabilities(hello, "telegram", STREAMING).typingIndicator).toBe(false);
  });

  it("supports_outbound_attachments: true turns outboundFiles on; absent, false or null leaves it off", () => {
    const files = (caps: Record<string, unknown>) => resolveCapabilities(helloWith(caps), "telegram", STREAMING).outboundFiles;
    expect(resolveCapabilities(helloWith({ supports_outbound_attachments: true }), "telegram", STREAMING)).toStrictEqual({ ...FAIL_CLOSED, outboundFiles: true });
    expect(files({})).toBe(false);
    expect(files({ supports_outbound_attachments: false })).toBe(false);
    expect(files({ supports_outbound_attachments: null })).toBe(false);
  });

  it("supports_outbound_attachments is turnstream's own key: a value other than true is off and keeps the handshake", () => {
    for (const value of ["yes", 1, { on: true }, [true]]) {
      const caps = resolveCapabilities(helloWith({ send_ack: true, supports_outbound_attachments: value }), "telegram", STREAMING);
      expect(caps).toStrictEqual({ ...FAIL_CLOSED, sendAck: true });
    }
  });

  it("outboundFiles is per platform: a platform the hello does not list has it off", () => {
    const hello = parseHello({ schema: "openab.gateway.hello.v1", protocol_version: 1, capabilities: { LINE: { supports_outbound_attachments: true } } });
    expect(resolveCapabilities(hello, "line", STREAMING).outboundFiles).toBe(true);
    expect(resolveCapabilities(hello, "telegram", STREAMING).outboundFiles).toBe(false);
  });

  it("falls back to the default for enum values it does not know", () => {
    const hello = helloWith({ streaming_mode: "hybrid", status_backend: "hologram", message_limit: { unit: "words", max: 50 } });
    expect(resolveCapabilities(hello, "telegram", STREAMING)).toStrictEqual(FAIL_CLOSED);
  });

  it("message_limit: characters, bytes and utf16_bytes keep their unit; unlimited is Infinity", () => {
    const limit = (message_limit: unknown) => {
      const caps = resolveCapabilities(helloWith({ message_limit }), "telegram", STREAMING);
      return [caps.messageLimit, caps.messageLimitUnit];
    };
    expect(limit({ unit: "characters", max: 2000 })).toStrictEqual([2000, "characters"]);
    expect(limit({ unit: "bytes", max: 5000 })).toStrictEqual([5000, "bytes"]);
    expect(limit({ unit: "utf16_bytes", max: 28000 })).toStrictEqual([28000, "utf16_bytes"]);
    expect(limit({ unit: "unlimited" })).toStrictEqual([Infinity, "unlimited"]);
  });

  it("message_limit without a usable max is the default limit", () => {
    for (const message_limit of [{ unit: "characters" }, { unit: "bytes", max: 0 }, { unit: "characters", max: 10.5 }]) {
      const caps = resolveCapabilities(helloWith({ message_limit }), "telegram", STREAMING);
      expect([caps.messageLimit, caps.messageLimitUnit]).toStrictEqual([4096, "characters"]);
    }
  });

  it("[gateway] streaming = false forces streaming_mode disabled", () => {
    const hello = helloWith({ streaming_mode: "native" });
    expect(resolveCapabilities(hello, "telegram", STREAMING).streamingMode).toBe("native");
    expect(resolveCapabilities(hello, "telegram", { streaming: false, streamingPlaceholder: true }).streamingMode).toBe("disabled");
  });

  it("show_streaming_placeholder is ANDed with [gateway] streaming_placeholder", () => {
    const shown = helloWith({ show_streaming_placeholder: true });
    const hidden = helloWith({ show_streaming_placeholder: false });
    const resolve = (hello: GatewayHello, streamingPlaceholder: boolean) =>
      resolveCapabilities(hello, "telegram", { streaming: true, streamingPlaceholder }).showStreamingPlaceholder;
    expect([resolve(shown, true), resolve(shown, false), resolve(hidden, true), resolve(hidden, false)]).toStrictEqual([
      true,
      false,
      false,
      false,
    ]);
  });

  it("parses an unsupported protocol version as a hello, so the caller can log it and stay legacy", () => {
    expect(parseHello({ schema: "openab.gateway.hello.v1", protocol_version: 2 }).protocol_version).toBe(2);
  });

  it("rejects a hello whose known fields have the wrong type (the connection stays legacy)", () => {
    const frame = { ...example, capabilities: { teams: { send_ack: "yes" } } };
    expect(parseGatewayFrame(JSON.stringify(frame), 1 << 20)).toStrictEqual({
      kind: "rejected",
      reason: "invalid_hello",
      detail: "capabilities.teams.send_ack: Invalid input: expected boolean, received string",
    });
  });
});
