import type { ChannelDirectory } from "./channelDirectory.js";
import type { ChannelKind } from "./detectThread.js";
import type { Conversation } from "./messageEvent.js";

/** What an interaction says of where it was used (untrusted: any field may be missing). */
export interface InteractionWhere {
  readonly channel?: { readonly id: string; readonly type: number; readonly parent_id?: string | null } | undefined;
  readonly channel_id?: string | undefined;
  readonly guild_id?: string | undefined;
}

const THREAD_TYPES: ReadonlySet<number> = new Set([10, 11, 12]); // announcement, public, private threads

/**
 * The kind of the channel an interaction was used in: from its partial `channel`, else asked of
 * the directory (the gateway's channels, else `GET /channels/{id}`), as for a message. A thread
 * whose partial names no parent is asked too: its key is parent and thread, as its messages'.
 */
export async function interactionChannelKind(interaction: InteractionWhere, channels: ChannelDirectory): Promise<ChannelKind> {
  const isDm = interaction.guild_id === undefined;
  const partial = interaction.channel;
  const channelId = partial?.id ?? interaction.channel_id ?? "";
  if (isDm) return { kind: "dm", id: channelId };
  if (partial === undefined || (THREAD_TYPES.has(partial.type) && typeof partial.parent_id !== "string")) return channels.kindOf(channelId, false);
  if (THREAD_TYPES.has(partial.type)) return { kind: "thread", id: partial.id, parentId: partial.parent_id ?? undefined, ownerId: undefined };
  return { kind: "channel", id: partial.id, parentId: partial.parent_id ?? undefined };
}

/** A thread or a DM is a conversation; a channel is not (its messages each open a thread). */
export function conversationOf(kind: ChannelKind): Conversation | undefined {
  if (kind.kind === "dm") return { kind: "dm", channelId: kind.id };
  if (kind.kind === "thread") return { kind: "thread", parentId: kind.parentId ?? kind.id, threadId: kind.id };
  return undefined;
}
