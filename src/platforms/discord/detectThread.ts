/** A channel as the filter sees it: a thread (with its parent and owner), a DM, another guild channel, or not known. */
export type ChannelKind =
  | { readonly kind: "thread"; readonly id: string; readonly parentId: string | undefined; readonly ownerId: string | undefined }
  | { readonly kind: "dm"; readonly id: string }
  | { readonly kind: "channel"; readonly id: string; readonly parentId: string | undefined }
  | { readonly kind: "unknown"; readonly id: string };

export interface ChannelAllowance {
  readonly allowAll: boolean;
  readonly allowedChannels: ReadonlySet<string>;
}

export interface ThreadDetection {
  /** An allowed thread: allow-all, its own id listed, or its parent listed. */
  readonly inThread: boolean;
  /** Whether this bot owns the thread; undefined for anything that is not a thread. */
  readonly botOwnsThread: boolean | undefined;
}

/**
 * OpenAB's `detect_thread`: only a channel with thread metadata is a thread — a text channel under
 * a category has a parent id too, and is not one (upstream's regression #506).
 */
export function detectThread(channel: ChannelKind, allowance: ChannelAllowance, botId: string): ThreadDetection {
  if (channel.kind !== "thread") return { inThread: false, botOwnsThread: undefined };
  const listed = allowance.allowedChannels.has(channel.id) || (channel.parentId !== undefined && allowance.allowedChannels.has(channel.parentId));
  return { inThread: allowance.allowAll || listed, botOwnsThread: channel.ownerId === botId };
}

/** Whether the channel itself is allowed (allow-all or listed), or is an allowed thread. */
export function channelAllowed(channel: ChannelKind, allowance: ChannelAllowance, botId: string): boolean {
  return allowance.allowAll || allowance.allowedChannels.has(channel.id) || detectThread(channel, allowance, botId).inThread;
}
