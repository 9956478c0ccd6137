import { SlackApiError } from "./slackApiError.js";

/** A user as `users.info` describes one (the fields adapters read, in Slack's shape). */
export interface SlackUser {
  readonly id: string;
  readonly team_id: string;
  readonly name: string;
  readonly deleted: boolean;
  readonly real_name: string;
  readonly is_bot: boolean;
  readonly is_app_user: boolean;
  readonly tz: string;
  readonly profile: {
    readonly display_name: string;
    readonly display_name_normalized: string;
    readonly real_name: string;
    readonly real_name_normalized: string;
    readonly team: string;
    readonly bot_id?: string;
    readonly api_app_id?: string;
  };
}

/** A bot: its user (`U…`, what mentions name), its bot id (`B…`, what its messages carry) and its app (`A…`). */
export interface SlackBot {
  readonly user: SlackUser;
  readonly botId: string;
  readonly appId: string;
}

export type ConversationKind = "public" | "private" | "im";

/** A conversation: a public or private channel, or the bot's DM with one user. */
export interface Conversation {
  readonly id: string;
  readonly kind: ConversationKind;
  /** A channel's name (none for a DM). */
  readonly name: string | undefined;
  /** A DM's other member. */
  readonly imUser: string | undefined;
  readonly members: Set<string>;
  readonly created: number;
  readonly creator: string;
  archived: boolean;
}

export interface NewUser {
  readonly name: string;
  readonly realName?: string;
  /** The profile's display name; Slack leaves it empty unless the user set one. */
  readonly displayName?: string;
  readonly id?: string;
}

/** Slack's ids: a type letter, then upper-case letters and digits. The fake's count up, so runs repeat. */
export class IdMaker {
  private readonly counts = new Map<string, number>();

  next(prefix: string): string {
    const count = (this.counts.get(prefix) ?? 0) + 1;
    this.counts.set(prefix, count);
    return `${prefix}0TS${count.toString(36).toUpperCase().padStart(6, "0")}`;
  }
}

/** The team, its users and bots, and its conversations with their members. */
export class Workspace {
  private readonly users = new Map<string, SlackUser>();
  private readonly bots = new Map<string, SlackBot>();
  private readonly conversations = new Map<string, Conversation>();

  constructor(
    readonly team: { readonly id: string; readonly name: string; readonly domain: string },
    readonly ids: IdMaker,
    private readonly now: () => number,
  ) {}

  addUser(user: NewUser): SlackUser {
    return this.register(user, undefined);
  }

  /** A bot user with its bot and app ids (this app's own bot, or another app's). */
  addBot(bot: NewUser & { botId?: string; appId?: string }): SlackBot {
    const botId = bot.botId ?? this.ids.next("B");
    const appId = bot.appId ?? this.ids.next("A");
    const user = this.register(bot, { botId, appId });
    const added: SlackBot = { user, botId, appId };
    this.bots.set(botId, added);
    return added;
  }

  user(id: string): SlackUser | undefined {
    return this.users.get(id);
  }

  botByBotId(botId: string): SlackBot | undefined {
    return this.bots.get(botId);
  }

  /** A user or bot by `name` or display name (how a client turns a typed `@name` into a mention). */
  userNamed(name: string): SlackUser | undefined {
    const wanted = name.toLowerCase();
    return [...this.users.values()].find((user) => user.name.toLowerCase() === wanted || user.profile.display_name.toLowerCase() === wanted);
  }

  addChannel(options: { name: string; private?: boolean; members: readonly string[]; id?: string; creator?: string }): Conversation {
    if (!/^[a-z0-9_-]{1,80}$/.test(options.name)) throw new Error(`fake Slack: ${JSON.stringify(options.name)} is not a channel name Slack allows`);
    const conversation: Conversation = {
      id: options.id ?? this.ids.next("C"),
      kind: options.private ? "private" : "public",
      name: options.name,
      imUser: undefined,
      members: new Set(options.members),
      created: Math.floor(this.now() / 1000),
      creator: options.creator ?? options.members[0] ?? "",
      archived: false,
    };
    this.conversations.set(conversation.id, conversation);
    return conversation;
  }

  /** The DM between `botUser` and a user, opened if new (one per pair, as Slack keeps it). */
  im(botUser: string, userId: string): Conversation {
    const known = [...this.conversations.values()].find((each) => each.kind === "im" && each.imUser === userId);
    if (known) return known;
    const conversation: Conversation = {
      id: this.ids.next("D"),
      kind: "im",
      name: undefined,
      imUser: userId,
      members: new Set([botUser, userId]),
      created: Math.floor(this.now() / 1000),
      creator: userId,
      archived: false,
    };
    this.conversations.set(conversation.id, conversation);
    return conversation;
  }

  conversation(id: string): Conversation | undefined {
    return this.conversations.get(id);
  }

  /** A conversation as a call names it: an id, a channel name (`general` or `#general`). Unknown: `channel_not_found`. */
  find(ref: string): Conversation {
    const byId = this.conversations.get(ref);
    if (byId) return byId;
    const name = ref.startsWith("#") ? ref.slice(1) : ref;
    const byName = [...this.conversations.values()].find((each) => each.name === name);
    if (!byName) throw new SlackApiError("channel_not_found");
    return byName;
  }

  private register(user: NewUser, bot: { botId: string; appId: string } | undefined): SlackUser {
    const realName = user.realName ?? user.name;
    const displayName = user.displayName ?? "";
    const added: SlackUser = {
      id: user.id ?? this.ids.next("U"),
      team_id: this.team.id,
      name: user.name,
      deleted: false,
      real_name: realName,
      is_bot: bot !== undefined,
      is_app_user: false,
      tz: "Europe/Berlin",
      profile: {
        display_name: displayName,
        display_name_normalized: displayName,
        real_name: realName,
        real_name_normalized: realName,
        team: this.team.id,
        ...(bot ? { bot_id: bot.botId, api_app_id: bot.appId } : {}),
      },
    };
    this.users.set(added.id, added);
    return added;
  }
}
