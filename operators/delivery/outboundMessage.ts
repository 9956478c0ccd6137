/**
 * One message for the gateway to post: the body of an `openab.gateway.reply.v1` frame without the
 * frame's `schema` and `request_id`, which the gateway connector adds when it sends.
 */
export interface OutboundMessage {
  /** The originating event's `event_id`, `""` when there is none; for commands, the target message id. */
  readonly reply_to: string;
  readonly platform: string;
  readonly channel: { readonly id: string; readonly thread_id?: string };
  readonly content: { readonly type: "text"; readonly text: string };
  /**
   * Visual reply/quote target (from a `[[reply_to:…]]` directive). With `create_topic`: the
   * message the thread starts from (a cron job's post), where the platform has such threads.
   */
  readonly quote_message_id?: string;
  /** Omitted for a plain send. */
  readonly command?: OutboundCommand;
  /**
   * Buttons under the message, in one row, on a send or an `edit_message` (an edit with `[]`
   * removes them). Only to a platform whose capabilities say `buttons` (a native adapter), never
   * to a gateway: there the same question goes out as a numbered list.
   */
  readonly choices?: readonly OutboundChoice[];
  /**
   * Show `content.text` exactly as it is: no Markdown (mrkdwn) is read in it. A question quotes
   * what an agent wants to run, and the person must see the command that will run, not one whose
   * `*`, `_` or backticks became formatting. A native adapter sends such a message without a parse
   * mode, or escaped; the gateway protocol has no way to say it (its platforms render as they do).
   */
  readonly plainText?: true;
  /**
   * A file posted with this message, `content.text` its caption (`""`: none). Only on a plain send
   * (no `command`), and only to a platform whose capabilities say `outboundFiles`; elsewhere the
   * conversation is told the file could not be sent (`fileNotice`). The bytes are not here: they
   * wait in the bus's file store under `ref` (`Bus.files`), so a send stays small on any bus.
   */
  readonly attachment?: OutboundAttachment;
}

/** A file a send carries (`OutboundMessage.attachment`). */
export interface OutboundAttachment {
  /** What the chat shows as the file's name: a base name, cleaned and bounded, never a path. */
  readonly filename: string;
  /** The file's media type, e.g. `image/png`; `application/octet-stream` when unknown. */
  readonly mime_type: string;
  /** Bytes. */
  readonly size: number;
  /** Shown as a picture (an image the platform can show inline) or as a document. */
  readonly kind: "image" | "document";
  /** The stored file's name in the bus's file store, put by the worker before the send. */
  readonly ref: string;
}

/** One button: what it shows, and the data a tap on it carries back (`GatewayEvent.tap.data`). */
export interface OutboundChoice {
  /** At most 64 characters, plain text. */
  readonly label: string;
  /** At most 64 bytes of `[A-Za-z0-9:_-]` (Telegram's `callback_data` bound, the tightest). */
  readonly data: string;
}

export type OutboundCommand =
  | "create_topic"
  | "add_reaction"
  | "remove_reaction"
  | "edit_message"
  | "delete_message"
  /**
   * "The bot is typing" in the conversation while a turn runs (`content.text` is `""`, `reply_to`
   * the turn's event id). Not in the OpenAB gateway protocol: sent only to a platform whose
   * capabilities say `typingIndicator` (a native adapter), never to a gateway.
   */
  | "typing"
  /**
   * Answers a tap on one of the broker's buttons (`GatewayEvent.tap`): `reply_to` is the tap's
   * `id`, `content.text` a short notice only the person who tapped sees (`""`: none). Not in the
   * OpenAB gateway protocol: sent only to a platform whose capabilities say `buttons`.
   */
  | "answer_tap"
  /**
   * A short text only one person sees, in the message's conversation (`channel`): `reply_to` is
   * their sender id. Someone who may not answer a question is told so when they reply to it in
   * words. Not in the OpenAB gateway protocol: sent only to a platform whose capabilities say
   * `notices` (Slack's ephemeral messages).
   */
  | "notice";

/** What the gateway answered for one send. */
export interface SendReceipt {
  /** The platform message id, or `"gw_sent"` when a legacy gateway confirmed without one. */
  readonly messageId: string;
  /**
   * The marker the send put above the message's text (a recovered re-run's, `markedText`); absent
   * when none. An edit of the message must write it again, or it is gone.
   */
  readonly marker?: string;
  /** The thread a `create_topic` opened, where the gateway names it apart from the message id (`thread_id`); a native port's is its `messageId`. */
  readonly threadId?: string;
}
