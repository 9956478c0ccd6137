import * as z from "zod";

/** The only `hello.v1` protocol version turnstream negotiates; any other stays in legacy mode (§6.3). */
export const GATEWAY_PROTOCOL_VERSION = 1;

// Known fields are type-checked (a wrong type makes the hello malformed → legacy mode, as upstream);
// enum-like fields are plain strings here so that a value a newer gateway invents falls back to the
// fail-closed default in `resolveCapabilities` instead of throwing away the whole handshake.
const flag = z.boolean().nullish();

const capabilitySchema = z.object({
  send_ack: flag,
  edit_ack: flag,
  delete_ack: flag,
  supports_target_message_id: flag,
  supports_reactions: flag,
  supports_attachment_materialization: flag,
  supports_conversation_registry: flag,
  supports_persistent_conversation_send: flag,
  // turnstream's own name (upstream's reply frames carry `content.attachments`, its hello names no
  // capability for them): any value but `true` is off, and no value spoils the rest of the handshake.
  supports_outbound_attachments: flag.catch(undefined),
  can_edit: flag,
  can_delete: flag,
  streaming_mode: z.string().nullish(),
  show_streaming_placeholder: flag,
  message_limit: z.object({ unit: z.string(), max: z.number().nullish() }).nullish(),
  status_backend: z.string().nullish(),
});

/** `openab.gateway.hello.v1` (§6.1). Capability keys are lower-cased platform names; unknown fields are dropped. */
export const gatewayHelloSchema = z.object({
  schema: z.literal("openab.gateway.hello.v1"),
  protocol_version: z.number().int(),
  capabilities: z
    .record(z.string(), capabilitySchema)
    .nullish()
    .transform((capabilities) =>
      Object.fromEntries(Object.entries(capabilities ?? {}).map(([platform, caps]) => [platform.toLowerCase(), caps])),
    ),
  topology: z
    .object({ active_consumers: z.number().int().nullish(), supported: flag, delivery_mode: z.string().nullish() })
    .nullish(),
});

export type GatewayHello = z.output<typeof gatewayHelloSchema>;

export type StreamingMode = "disabled" | "edit" | "native";
export type StatusBackend = "none" | "reactions" | "assistant" | "typing" | "message";
export type MessageLimitUnit = "characters" | "bytes" | "utf16_bytes" | "unlimited";

/** One platform's negotiated capabilities after the core-side overrides. */
export interface PlatformCapabilities {
  readonly sendAck: boolean;
  readonly editAck: boolean;
  readonly deleteAck: boolean;
  readonly supportsTargetMessageId: boolean;
  readonly supportsReactions: boolean;
  readonly supportsAttachmentMaterialization: boolean;
  readonly supportsConversationRegistry: boolean;
  readonly supportsPersistentConversationSend: boolean;
  readonly canEdit: boolean;
  readonly canDelete: boolean;
  readonly streamingMode: StreamingMode;
  readonly showStreamingPlaceholder: boolean;
  /**
   * The largest message, counted in `messageLimitUnit`; `Infinity` when unlimited. Only
   * `characters` (code points) is a char limit the splitter can use as is; for `bytes` (UTF-8) and
   * `utf16_bytes` the caller decides how to split, since a char limit cannot express them exactly.
   */
  readonly messageLimit: number;
  readonly messageLimitUnit: MessageLimitUnit;
  readonly statusBackend: StatusBackend;
  /**
   * Whether the broker shows "typing…" while a turn runs (the `typing` command). Not a hello field:
   * the gateway protocol has no such command, so a gateway platform always has it off; a native
   * adapter's fixed capabilities turn it on. Absent: off.
   */
  readonly typingIndicator?: boolean;
  /**
   * Whether a message can carry buttons (`OutboundMessage.choices`) whose taps come back as
   * `GatewayEvent.tap`, and taps are answered with `answer_tap`. Not a hello field: the gateway
   * protocol has neither, so a gateway platform asks with a numbered list; a native adapter's
   * fixed capabilities turn it on. Absent: off.
   */
  readonly buttons?: boolean;
  /**
   * Whether a message can be shown to one person only (the `notice` command: Slack's ephemeral
   * messages). Not a hello field; a native adapter's fixed capabilities turn it on. Absent: off.
   */
  readonly notices?: boolean;
  /**
   * Whether a send may carry a file (`OutboundMessage.attachment`). From a hello: the platform's
   * `supports_outbound_attachments` (fail-closed: false), and then the file travels inline in the
   * reply frame's `content.attachments`; a native adapter uploads it. Absent: off, and each file
   * is one short notice line instead.
   */
  readonly outboundFiles?: boolean;
}

export interface CapabilityOverrides {
  /** `[gateway] streaming`; `false` forces `streamingMode: "disabled"`. */
  readonly streaming: boolean;
  /** `[gateway] streaming_placeholder`; ANDed into `showStreamingPlaceholder`. */
  readonly streamingPlaceholder: boolean;
}

const STREAMING_MODES: readonly StreamingMode[] = ["disabled", "edit", "native"];
const STATUS_BACKENDS: readonly StatusBackend[] = ["none", "reactions", "assistant", "typing", "message"];
const SIZED_UNITS: readonly MessageLimitUnit[] = ["characters", "bytes", "utf16_bytes"];
const DEFAULT_LIMIT = { messageLimit: 4096, messageLimitUnit: "characters" } as const;

/**
 * `platform`'s capabilities from a valid hello (§6.2): a platform the hello does not list, and any
 * field it leaves out or fills with a value this version does not know, get the fail-closed
 * default. Call it only for a hello with `protocol_version === GATEWAY_PROTOCOL_VERSION`; without
 * one the connection is in legacy mode, which is not these defaults.
 */
export function resolveCapabilities(
  hello: GatewayHello,
  platform: string,
  overrides: CapabilityOverrides,
): PlatformCapabilities {
  const caps = hello.capabilities[platform.toLowerCase()];
  const on = (value: boolean | null | undefined) => value ?? false;
  const streamingMode = oneOf(caps?.streaming_mode, STREAMING_MODES) ?? "disabled";
  return {
    sendAck: on(caps?.send_ack),
    editAck: on(caps?.edit_ack),
    deleteAck: on(caps?.delete_ack),
    supportsTargetMessageId: on(caps?.supports_target_message_id),
    supportsReactions: on(caps?.supports_reactions),
    supportsAttachmentMaterialization: on(caps?.supports_attachment_materialization),
    supportsConversationRegistry: on(caps?.supports_conversation_registry),
    supportsPersistentConversationSend: on(caps?.supports_persistent_conversation_send),
    canEdit: on(caps?.can_edit),
    canDelete: on(caps?.can_delete),
    streamingMode: overrides.streaming ? streamingMode : "disabled",
    showStreamingPlaceholder: on(caps?.show_streaming_placeholder) && overrides.streamingPlaceholder,
    ...messageLimitOf(caps?.message_limit),
    statusBackend: oneOf(caps?.status_backend, STATUS_BACKENDS) ?? "none",
    // No hello can turn it on: a `typing` command must never reach a gateway.
    typingIndicator: false,
    outboundFiles: on(caps?.supports_outbound_attachments),
  };
}

function messageLimitOf(
  limit: { unit: string; max?: number | null | undefined } | null | undefined,
): Pick<PlatformCapabilities, "messageLimit" | "messageLimitUnit"> {
  if (limit == null) return DEFAULT_LIMIT;
  if (limit.unit === "unlimited") return { messageLimit: Infinity, messageLimitUnit: "unlimited" };
  const unit = oneOf(limit.unit, SIZED_UNITS);
  const max = limit.max;
  // A sized unit without a usable positive integer max is as good as no limit advertised.
  if (unit === undefined || max == null || !Number.isSafeInteger(max) || max < 1) return DEFAULT_LIMIT;
  return { messageLimit: max, messageLimitUnit: unit };
}

function oneOf<T extends string>(value: string | null | undefined, allowed: readonly T[]): T | undefined {
  return allowed.find((candidate) => candidate === value);
}
