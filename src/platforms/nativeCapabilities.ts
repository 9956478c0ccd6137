import type { PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";

/** What sets one native platform's capabilities apart from another's. */
export interface NativeCapabilityOptions {
  /** Characters a message may hold. */
  readonly messageLimit: number;
  /** Text turns stream by editing one message, opening with the placeholder. */
  readonly streaming: boolean;
  /** The platform shows the bot as "typing…" while a turn runs. */
  readonly typing: boolean;
  /** Messages carry buttons, and taps on them come back (`PlatformCapabilities.buttons`). */
  readonly buttons?: boolean;
  /** A message can be shown to one person only (`PlatformCapabilities.notices`). */
  readonly notices?: boolean;
  /** A send may carry a file, which the adapter uploads (`PlatformCapabilities.outboundFiles`). */
  readonly outboundFiles?: boolean;
}

/**
 * A platform spoken to natively, as a gateway hello would state it: every call answered (sends,
 * edits and deletes acked with their message ids), reactions as the status backend, edits and
 * deletes of the bot's own messages; the rest is the platform's (`options`).
 */
export function nativeCapabilities({ messageLimit, streaming, typing, buttons = false, notices = false, outboundFiles = false }: NativeCapabilityOptions): PlatformCapabilities {
  return {
    sendAck: true,
    editAck: true,
    deleteAck: true,
    supportsTargetMessageId: true,
    supportsReactions: true,
    supportsAttachmentMaterialization: false,
    supportsConversationRegistry: false,
    supportsPersistentConversationSend: false,
    canEdit: true,
    canDelete: true,
    streamingMode: streaming ? "edit" : "disabled",
    showStreamingPlaceholder: true,
    messageLimit,
    messageLimitUnit: "characters",
    statusBackend: "reactions",
    typingIndicator: typing,
    buttons,
    notices,
    outboundFiles,
  };
}
