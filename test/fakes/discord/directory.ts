import { unknownGuild, unknownMember, unknownUser } from "./discordApiError.js";
import { EVERYONE_DEFAULT } from "./permissions.js";
import type { Snowflakes } from "./snowflakes.js";

/** A Discord account the fake knows: a human, another bot, or the fake's own bot. */
export interface FakeUser {
  readonly id: string;
  readonly username: string;
  readonly global_name: string | null;
  readonly bot: boolean;
}

export interface FakeRole {
  readonly id: string;
  readonly name: string;
  readonly position: number;
  readonly permissions: string;
  readonly mentionable: boolean;
  /** A bot's own role, made when the bot joins (its `tags.bot_id`). */
  readonly botId?: string;
}

export interface FakeMember {
  readonly userId: string;
  nick: string | null;
  roles: string[];
  readonly joinedAt: number;
}

export interface FakeEmoji {
  readonly id: string;
  readonly name: string;
  readonly guildId: string;
}

export interface FakeGuild {
  readonly id: string;
  readonly name: string;
  readonly ownerId: string;
  /** By id; the guild's own id is @everyone's. */
  readonly roles: Map<string, FakeRole>;
  readonly members: Map<string, FakeMember>;
  readonly emojis: Map<string, FakeEmoji>;
  readonly joinedAt: number;
}

/** Users, guilds, their roles, members and custom emoji: who is who, for mentions and display names. */
export class Directory {
  private readonly users = new Map<string, FakeUser>();
  private readonly guildsById = new Map<string, FakeGuild>();

  constructor(
    readonly bot: FakeUser,
    private readonly ids: Snowflakes,
    private readonly now: () => number,
  ) {
    this.users.set(bot.id, bot);
  }

  addUser(user: { id?: string; username: string; global_name?: string | null; bot?: boolean }): FakeUser {
    const added: FakeUser = { id: user.id ?? this.ids.next(), username: user.username, global_name: user.global_name ?? null, bot: user.bot ?? false };
    this.users.set(added.id, added);
    return added;
  }

  user(id: string): FakeUser | undefined {
    return this.users.get(id);
  }

  /** A user `GET /users/{id}` may see, or 10013 Unknown User. */
  knownUser(id: string): FakeUser {
    const user = this.users.get(id);
    if (!user) throw unknownUser();
    return user;
  }

  /** A guild with @everyone (whose id is the guild's), the bot as a member and the bot's own managed role. */
  addGuild(options: { name: string; id?: string; ownerId?: string }): FakeGuild {
    const id = options.id ?? this.ids.next();
    const guild: FakeGuild = { id, name: options.name, ownerId: options.ownerId ?? this.bot.id, roles: new Map(), members: new Map(), emojis: new Map(), joinedAt: this.now() };
    guild.roles.set(id, { id, name: "@everyone", position: 0, permissions: EVERYONE_DEFAULT, mentionable: false });
    const botRole: FakeRole = { id: this.ids.next(), name: this.bot.username, position: 1, permissions: "0", mentionable: false, botId: this.bot.id };
    guild.roles.set(botRole.id, botRole);
    guild.members.set(this.bot.id, { userId: this.bot.id, nick: null, roles: [botRole.id], joinedAt: this.now() });
    this.guildsById.set(id, guild);
    return guild;
  }

  addRole(guildId: string, options: { name: string; mentionable?: boolean; id?: string }): FakeRole {
    const guild = this.guild(guildId);
    const role: FakeRole = { id: options.id ?? this.ids.next(), name: options.name, position: guild.roles.size, permissions: "0", mentionable: options.mentionable ?? true };
    guild.roles.set(role.id, role);
    return role;
  }

  /** Makes a user a member of a guild (again: updates nick and roles). */
  addMember(guildId: string, userId: string, options: { nick?: string | null; roles?: string[] } = {}): FakeMember {
    const guild = this.guild(guildId);
    if (!this.users.has(userId)) throw new Error(`fake Discord: no user ${userId}; addUser first`);
    const member: FakeMember = guild.members.get(userId) ?? { userId, nick: null, roles: [], joinedAt: this.now() };
    if (options.nick !== undefined) member.nick = options.nick;
    if (options.roles) {
      const unknown = options.roles.filter((role) => !guild.roles.has(role));
      if (unknown.length > 0) throw new Error(`fake Discord: guild ${guildId} has no role ${unknown.join(", ")}`);
      member.roles = [...options.roles];
    }
    guild.members.set(userId, member);
    return member;
  }

  addEmoji(guildId: string, name: string): FakeEmoji {
    const emoji: FakeEmoji = { id: this.ids.next(), name, guildId };
    this.guild(guildId).emojis.set(emoji.id, emoji);
    return emoji;
  }

  /** A custom emoji of any guild the bot is in, by id. */
  emoji(id: string): FakeEmoji | undefined {
    for (const guild of this.guildsById.values()) {
      const emoji = guild.emojis.get(id);
      if (emoji) return emoji;
    }
    return undefined;
  }

  guilds(): FakeGuild[] {
    return [...this.guildsById.values()];
  }

  findGuild(id: string): FakeGuild | undefined {
    return this.guildsById.get(id);
  }

  /** A guild the bot is in, or 10004 Unknown Guild. */
  knownGuild(id: string): FakeGuild {
    const guild = this.guildsById.get(id);
    if (!guild) throw unknownGuild();
    return guild;
  }

  /** A guild member, or 10007 Unknown Member. */
  knownMember(guildId: string, userId: string): FakeMember {
    const member = this.knownGuild(guildId).members.get(userId);
    if (!member) throw unknownMember();
    return member;
  }

  private guild(id: string): FakeGuild {
    const guild = this.guildsById.get(id);
    if (!guild) throw new Error(`fake Discord: no guild ${id}`);
    return guild;
  }
}
