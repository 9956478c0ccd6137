import { ChannelType, type API, type APIChannel } from "@discordjs/core";
import type { ChannelKind } from "./detectThread.js";

const THREAD_TYPES: ReadonlySet<number> = new Set([ChannelType.PublicThread, ChannelType.PrivateThread, ChannelType.AnnouncementThread]);
const DM_TYPES: ReadonlySet<number> = new Set([ChannelType.DM, ChannelType.GroupDM]);

/** What a channel object says about the filter's question: a thread (parent, owner), a DM, or another channel. */
export function channelKindOf(channel: Pick<APIChannel, "id" | "type"> & { readonly parent_id?: string | null; readonly owner_id?: string | null }): ChannelKind {
  if (THREAD_TYPES.has(channel.type)) return { kind: "thread", id: channel.id, parentId: channel.parent_id ?? undefined, ownerId: channel.owner_id ?? undefined };
  if (DM_TYPES.has(channel.type)) return { kind: "dm", id: channel.id };
  return { kind: "channel", id: channel.id, parentId: channel.parent_id ?? undefined };
}

/**
 * The kinds of the channels messages arrive in: learnt from the gateway (GUILD_CREATE's channels
 * and threads, THREAD_CREATE, CHANNEL_CREATE) and else asked of REST once (`GET /channels/{id}`).
 * What a channel is never changes, so an entry stays until the map is full (then the oldest half
 * goes). A failed lookup is `unknown` and not kept: asked again next time.
 */
export class ChannelDirectory {
  readonly #kinds = new Map<string, ChannelKind>();
  readonly #api: API;
  readonly #maxEntries: number;

  constructor(api: API, maxEntries = 10_000) {
    this.#api = api;
    this.#maxEntries = maxEntries;
  }

  learn(channel: Parameters<typeof channelKindOf>[0]): void {
    this.#remember(channelKindOf(channel));
  }

  async kindOf(channelId: string, isDm: boolean): Promise<ChannelKind> {
    if (isDm) return { kind: "dm", id: channelId };
    const known = this.#kinds.get(channelId);
    if (known !== undefined) return known;
    try {
      const kind = channelKindOf(await this.#api.channels.get(channelId));
      this.#remember(kind);
      return kind;
    } catch {
      return { kind: "unknown", id: channelId };
    }
  }

  #remember(kind: ChannelKind): void {
    this.#kinds.set(kind.id, kind);
    if (this.#kinds.size <= this.#maxEntries) return;
    let drop = Math.ceil(this.#kinds.size / 2);
    for (const key of this.#kinds.keys()) {
      if (drop-- === 0) return;
      this.#kinds.delete(key);
    }
  }
}
