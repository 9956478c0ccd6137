import { readComponents } from "./components.js";
import { isObject, lengthOf, maxLength, notBoolean, notInteger, notList, notObject, notSnowflake, notString, required, type FormErrors } from "./formErrors.js";
import { readAllowedMentions, type AllowedMentions } from "./mentions.js";
import { readSnowflake } from "./snowflakes.js";

/** The content limit of a message (docs: Create Message, `content` up to 2000 characters). */
export const CONTENT_LIMIT = 2000;

/** Message flags the fake reads (docs: Resources › Message › Message Flags). */
export const MESSAGE_FLAG = {
  SUPPRESS_EMBEDS: 1 << 2,
  EPHEMERAL: 1 << 6,
  LOADING: 1 << 7,
  SUPPRESS_NOTIFICATIONS: 1 << 12,
  IS_VOICE_MESSAGE: 1 << 13,
  IS_COMPONENTS_V2: 1 << 15,
} as const;

/** The flags a sender may set: on a new message, an edit, or an interaction response. */
export const SETTABLE_FLAGS = {
  create: MESSAGE_FLAG.SUPPRESS_EMBEDS | MESSAGE_FLAG.SUPPRESS_NOTIFICATIONS | MESSAGE_FLAG.IS_VOICE_MESSAGE | MESSAGE_FLAG.IS_COMPONENTS_V2,
  edit: MESSAGE_FLAG.SUPPRESS_EMBEDS | MESSAGE_FLAG.IS_COMPONENTS_V2,
  interaction: MESSAGE_FLAG.SUPPRESS_EMBEDS | MESSAGE_FLAG.EPHEMERAL | MESSAGE_FLAG.IS_COMPONENTS_V2 | MESSAGE_FLAG.IS_VOICE_MESSAGE | MESSAGE_FLAG.SUPPRESS_NOTIFICATIONS,
} as const;

/** What a message body asks for; a field absent from the body is undefined (an edit leaves it as it was). */
export interface MessageFields {
  /** null: an edit clears the content. */
  readonly content: string | null | undefined;
  readonly embeds: unknown[] | undefined;
  readonly components: unknown[] | undefined;
  readonly flags: number | undefined;
  readonly allowedMentions: AllowedMentions | undefined;
  readonly reference: { readonly messageId: string; readonly channelId: string | undefined; readonly failIfNotExists: boolean } | undefined;
  readonly nonce: string | number | undefined;
  /** Attachment ids to keep (an edit's `attachments`). */
  readonly keepAttachments: string[] | undefined;
  readonly stickerIds: unknown[] | undefined;
}

/**
 * Reads and checks a message body's fields as Discord documents them (content ≤ 2000, ≤ 10 embeds,
 * components as `readComponents` reads them, nonce ≤ 25 characters, allowed_mentions, message_reference), adding each refusal to
 * `errors`. Flags outside `settable` are dropped, as Discord ignores them.
 */
export function readMessageFields(json: unknown, errors: FormErrors, settable: number): MessageFields {
  if (json !== undefined && !isObject(json)) {
    errors.add([], notObject);
    return readMessageFields(undefined, errors, settable);
  }
  const body = json ?? {};
  return {
    content: readContent(body.content, errors),
    embeds: readList(body, "embeds", 10, errors),
    components: readComponents(body.components, errors),
    flags: readFlags(body.flags, settable, errors),
    allowedMentions: readAllowedMentions(body.allowed_mentions, errors),
    reference: readReference(body.message_reference, errors),
    nonce: readNonce(body.nonce, errors),
    keepAttachments: readKeptAttachments(body.attachments, errors),
    stickerIds: Array.isArray(body.sticker_ids) ? body.sticker_ids : undefined,
  };
}

function readContent(value: unknown, errors: FormErrors): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value !== "string") {
    errors.add(["content"], notString(value));
    return undefined;
  }
  if (lengthOf(value) > CONTENT_LIMIT) errors.add(["content"], maxLength(CONTENT_LIMIT));
  return value;
}

function readList(body: Record<string, unknown>, field: string, max: number, errors: FormErrors): unknown[] | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (value === null) return [];
  if (!Array.isArray(value)) {
    errors.add([field], notList);
    return undefined;
  }
  if (value.length > max) errors.add([field], maxLength(max));
  value.forEach((item, index) => {
    if (!isObject(item)) errors.add([field, index], notObject);
  });
  return value;
}

function readFlags(value: unknown, settable: number, errors: FormErrors): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Number.isSafeInteger(value)) {
    errors.add(["flags"], notInteger(value));
    return undefined;
  }
  return (value as number) & settable;
}

function readReference(value: unknown, errors: FormErrors): MessageFields["reference"] {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) {
    errors.add(["message_reference"], notObject);
    return undefined;
  }
  if (value.type !== undefined && value.type !== 0) {
    // Forwards (type 1) are a different feature; the fake models replies only.
    errors.add(["message_reference", "type"], { code: "BASE_TYPE_CHOICES", message: "fake Discord models replies (type 0) only" });
    return undefined;
  }
  const messageId = readSnowflake(value.message_id);
  if (value.message_id === undefined) errors.add(["message_reference", "message_id"], required);
  else if (messageId === undefined) errors.add(["message_reference", "message_id"], notSnowflake(value.message_id));
  const channelId = value.channel_id === undefined ? undefined : readSnowflake(value.channel_id);
  if (value.channel_id !== undefined && channelId === undefined) errors.add(["message_reference", "channel_id"], notSnowflake(value.channel_id));
  if (value.fail_if_not_exists !== undefined && typeof value.fail_if_not_exists !== "boolean") errors.add(["message_reference", "fail_if_not_exists"], notBoolean);
  return messageId === undefined ? undefined : { messageId, channelId, failIfNotExists: value.fail_if_not_exists !== false };
}

function readNonce(value: unknown, errors: FormErrors): string | number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") {
    if (lengthOf(value) > 25) errors.add(["nonce"], maxLength(25));
    return value;
  }
  if (Number.isSafeInteger(value)) return value as number;
  errors.add(["nonce"], notString(value));
  return undefined;
}

function readKeptAttachments(value: unknown, errors: FormErrors): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    errors.add(["attachments"], notList);
    return undefined;
  }
  return value.flatMap((item, index) => {
    const id = isObject(item) ? (readSnowflake(item.id) ?? (Number.isInteger(item.id) ? String(item.id) : undefined)) : undefined;
    if (id === undefined) errors.add(["attachments", index, "id"], isObject(item) ? notSnowflake(item.id) : notObject);
    return id === undefined ? [] : [id];
  });
}
