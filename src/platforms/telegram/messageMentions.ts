import type { Message, MessageEntity } from "grammy/types";

/**
 * The usernames a message @mentions, as OpenAB's gateway lists them (`mention` entities of the
 * text and of a caption, the leading `@` removed; `text_mention` and `bot_command` ignored), but
 * sliced by UTF-16 code units as Telegram counts entity offsets: a JavaScript string is indexed
 * in those units, so emoji or Cyrillic before a mention never shift it (the gateway slices UTF-8
 * bytes and misses such mentions).
 */
export function mentionsOf(message: Pick<Message, "text" | "entities" | "caption" | "caption_entities">): string[] {
  return [...mentionsIn(message.text, message.entities), ...mentionsIn(message.caption, message.caption_entities)];
}

function mentionsIn(text: string | undefined, entities: readonly MessageEntity[] | undefined): string[] {
  if (text === undefined || entities === undefined) return [];
  const names: string[] = [];
  for (const entity of entities) {
    if (entity.type !== "mention") continue;
    const name = text.slice(entity.offset, entity.offset + entity.length).replace(/^@/, "");
    if (name !== "") names.push(name);
  }
  return names;
}
