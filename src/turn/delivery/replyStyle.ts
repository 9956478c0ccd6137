import { quoteFor, type ReplyToMode } from "../../../operators/delivery/text/replyThreading.js";
import { prefixRoom, resolveResponsePrefix, withResponsePrefix } from "../../../operators/delivery/text/responsePrefix.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { Config } from "../../config/index.js";
import type { Send } from "../../pipeline/send.js";
import type { TurnContext } from "../turn.js";

/** How a turn's reply messages look beyond their text: `[delivery] reply_to_mode` and `response_prefix`. */
export interface ReplyStyle {
  /** Unset: OpenAB's rule, left to the delivery paths (a `[[reply_to:…]]` directive quotes, on the first message). */
  readonly replyToMode: ReplyToMode | undefined;
  /** The resolved prefix; `""` for none. */
  readonly prefix: string;
}

/** The style `[delivery]` asks for; `identityName` (`[gateway] bot_username`) fills `{identity.name}` and `"auto"`. */
export function replyStyleOf(config: Pick<Config, "delivery">, identityName: string | undefined): ReplyStyle {
  const template = config.delivery.response_prefix;
  const vars = identityName === undefined || identityName === "" ? {} : { identityName };
  return { replyToMode: config.delivery.reply_to_mode, prefix: template === "" ? "" : resolveResponsePrefix(template, vars) };
}

/**
 * The turn's context with its reply messages styled, in the one place every delivery path sends
 * through: each new message (in send order) quotes per `reply_to_mode` — the directive's target
 * when the turn's first message carries one, else the user's message — and each message and edit
 * starts with the prefix (a text that already does is left alone; one that starts with a code
 * fence or another Markdown block gets it on a line of its own). Splits leave room for the prefix:
 * the message limit the paths read is smaller by its chars and the separator, and `styleChars`
 * says by how much for the limits a path keeps itself (`[delivery.blocks] max_chars`). Status
 * commands (reactions) go through `sendStatus` and are never touched.
 */
export function styledContext(context: TurnContext, event: GatewayEvent, style: ReplyStyle): TurnContext {
  const { replyToMode: mode, prefix } = style;
  if (mode === undefined && prefix === "") return context;
  let messages = 0;
  let target: string | undefined;
  const send: Send = (message, options) => {
    const text = message.content.text;
    if (message.command !== undefined) {
      if (message.command !== "edit_message" || prefix === "") return context.send(message, options);
      return context.send({ ...message, content: { type: "text", text: withResponsePrefix(prefix, text) } }, options);
    }
    const index = messages++;
    if (index === 0) target = message.quote_message_id ?? (event.message_id === "" ? undefined : event.message_id);
    const quote = mode === undefined ? message.quote_message_id : quoteFor(mode, target, index);
    const { quote_message_id: _quoted, ...unquoted } = message;
    const styled = { ...unquoted, content: { type: "text" as const, text: prefix === "" ? text : withResponsePrefix(prefix, text) }, ...(quote === undefined ? {} : { quote_message_id: quote }) };
    return context.send(styled, options);
  };
  // In chars, as limits count: "🤖" is one char (two UTF-16 units) and its separator another.
  const room = prefixRoom(prefix);
  // Read through, never copied: a context may be a class whose members are getters and methods.
  return {
    send,
    get sendStatus() {
      return context.sendStatus;
    },
    get scheduler() {
      return context.scheduler;
    },
    get logger() {
      return context.logger;
    },
    messageLimit: (platform) => Math.max(1, context.messageLimit(platform) - room),
    styleChars: (context.styleChars ?? 0) + room,
    get capabilities() {
      return context.capabilities;
    },
    note: (fact) => context.note?.(fact),
  };
}
