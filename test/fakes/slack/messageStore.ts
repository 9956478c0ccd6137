/** A message in Slack's shape (the fields the Events API and the Web API carry). */
export interface SlackMessage {
  readonly type: "message";
  subtype?: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  username?: string;
  bot_profile?: { id: string; app_id: string; name: string; deleted: boolean; team_id: string };
  text: string;
  ts: string;
  thread_ts?: string;
  parent_user_id?: string;
  reply_count?: number;
  reply_users?: string[];
  reply_users_count?: number;
  latest_reply?: string;
  team?: string;
  client_msg_id?: string;
  blocks?: unknown[];
  attachments?: unknown[];
  files?: unknown[];
  upload?: boolean;
  edited?: { user: string; ts: string };
  metadata?: unknown;
  /** `false` when posted with `mrkdwn: false`: its text is shown unformatted. */
  mrkdwn?: boolean;
}

/** A message as the fake keeps it: its current form, whether it is gone, its edits and reactions. */
export interface StoredMessage {
  readonly channel: string;
  message: SlackMessage;
  deleted: boolean;
  /** Its texts before each edit, oldest first. */
  readonly earlierTexts: string[];
  /** Reactions by short name, each with the users who added it, in order. */
  readonly reactions: Map<string, string[]>;
  /** A reply whose `thread_ts` named no message: Slack answers ok and nobody ever sees it. */
  readonly lost: boolean;
  /** A reply also shown in the channel (`reply_broadcast`). */
  readonly broadcast: boolean;
}

/** A file a message shows, as a person opens it. */
export interface ShownFile {
  readonly id: string;
  readonly name: string;
  readonly title: string;
  readonly mimetype: string;
  /** Its exact bytes. */
  readonly bytes: Buffer;
}

/** What a conversation shows now, one line per message, oldest first. */
export interface ShownMessage {
  readonly ts: string;
  /** The sender's user id (a bot's user id for a bot), or undefined for a legacy `bot_message`. */
  readonly user: string | undefined;
  /** Sent by this app's bot. */
  readonly from_bot: boolean;
  readonly text: string;
  /** For a reply: its thread's parent `ts`. */
  readonly thread_ts: string | undefined;
  readonly subtype: string | undefined;
  /** This app's bot's reactions on it, by short name. */
  readonly reactions: readonly string[];
  readonly edits: number;
  /** The files it shares, in order. */
  readonly files: readonly ShownFile[];
  readonly message: SlackMessage;
}

/**
 * Every message of every conversation, by `ts`. A `ts` is unique across the fake and increases: seconds
 * and microseconds of the fake's clock, bumped by one microsecond when two would be equal.
 */
export class MessageStore {
  private readonly byChannel = new Map<string, Map<string, StoredMessage>>();
  private lastMicros = 0;

  constructor(
    private readonly botUserId: string,
    private readonly now: () => number,
    private readonly files: { bytes(id: string): Buffer | undefined },
  ) {}

  nextTs(): string {
    this.lastMicros = Math.max(this.lastMicros + 1, Math.floor(this.now()) * 1000);
    return `${Math.floor(this.lastMicros / 1_000_000)}.${String(this.lastMicros % 1_000_000).padStart(6, "0")}`;
  }

  /**
   * Keeps a new message. A reply joins its thread (a reply's own `ts` as `thread_ts` means its parent's
   * thread) and updates the parent's `reply_count`, `reply_users` and `latest_reply`; a reply to no
   * message is kept as lost.
   */
  add(channel: string, message: SlackMessage, options: { broadcast?: boolean } = {}): StoredMessage {
    const messages = this.channelMessages(channel);
    let lost = false;
    if (message.thread_ts !== undefined && message.thread_ts !== message.ts) {
      const named = this.live(channel, message.thread_ts);
      const parent = named?.message.thread_ts !== undefined && named.message.thread_ts !== named.message.ts ? this.live(channel, named.message.thread_ts) : named;
      if (parent) {
        message.thread_ts = parent.message.ts;
        message.parent_user_id = parent.message.user ?? parent.message.bot_id;
        const sender = message.user ?? message.bot_id ?? "";
        const users = parent.message.reply_users ?? [];
        if (!users.includes(sender)) users.push(sender);
        Object.assign(parent.message, { thread_ts: parent.message.ts, reply_count: (parent.message.reply_count ?? 0) + 1, reply_users: users, reply_users_count: users.length, latest_reply: message.ts });
      } else {
        lost = true;
      }
    }
    const stored: StoredMessage = { channel, message, deleted: false, earlierTexts: [], reactions: new Map(), lost, broadcast: options.broadcast ?? false };
    messages.set(message.ts, stored);
    return stored;
  }

  /** A message still there (not deleted, not lost), or undefined. */
  live(channel: string, ts: string): StoredMessage | undefined {
    const stored = this.byChannel.get(channel)?.get(ts);
    return stored && !stored.deleted && !stored.lost ? stored : undefined;
  }

  /** A thread's messages, parent first (`ts` may name the parent or any reply); empty when there is none. */
  thread(channel: string, ts: string): StoredMessage[] {
    const named = this.live(channel, ts);
    if (!named) return [];
    const parentTs = named.message.thread_ts ?? named.message.ts;
    return this.all(channel).filter((stored) => stored.message.ts === parentTs || stored.message.thread_ts === parentTs);
  }

  /** Every live message of a conversation, oldest first. */
  all(channel: string): StoredMessage[] {
    return [...(this.byChannel.get(channel)?.values() ?? [])].filter((stored) => !stored.deleted && !stored.lost).sort((a, b) => compareTs(a.message.ts, b.message.ts));
  }

  /** Replies sent to a `thread_ts` that named no message, in every conversation. */
  lostReplies(): StoredMessage[] {
    return [...this.byChannel.values()].flatMap((messages) => [...messages.values()].filter((stored) => stored.lost));
  }

  /** What a conversation shows: its top-level messages (and broadcast replies), or with `thread` one thread. */
  shown(channel: string, options: { thread?: string } = {}): ShownMessage[] {
    const messages = options.thread === undefined ? this.all(channel).filter((stored) => isTopLevel(stored.message) || stored.broadcast) : this.thread(channel, options.thread);
    return messages.map((stored) => ({
      ts: stored.message.ts,
      user: stored.message.user,
      from_bot: stored.message.user === this.botUserId,
      text: stored.message.text,
      thread_ts: isTopLevel(stored.message) ? undefined : stored.message.thread_ts,
      subtype: stored.message.subtype,
      reactions: [...stored.reactions].filter(([, users]) => users.includes(this.botUserId)).map(([name]) => name),
      edits: stored.earlierTexts.length,
      files: (stored.message.files ?? []).map((file) => {
        const { id, name, title, mimetype } = file as { id: string; name: string; title: string; mimetype: string };
        return { id, name, title, mimetype, bytes: this.files.bytes(id) ?? Buffer.alloc(0) };
      }),
      message: stored.message,
    }));
  }

  private channelMessages(channel: string): Map<string, StoredMessage> {
    let messages = this.byChannel.get(channel);
    if (!messages) this.byChannel.set(channel, (messages = new Map()));
    return messages;
  }
}

export function isTopLevel(message: SlackMessage): boolean {
  return message.thread_ts === undefined || message.thread_ts === message.ts;
}

export function compareTs(a: string, b: string): number {
  const [aSeconds = 0, aMicros = 0] = a.split(".").map(Number);
  const [bSeconds = 0, bMicros = 0] = b.split(".").map(Number);
  return aSeconds - bSeconds || aMicros - bMicros;
}
