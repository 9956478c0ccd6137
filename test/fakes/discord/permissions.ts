/** Permission bits the fake reads (docs: Topics › Permissions). */
export const PERMISSION = {
  CREATE_INSTANT_INVITE: 1n << 0n,
  ADD_REACTIONS: 1n << 6n,
  VIEW_CHANNEL: 1n << 10n,
  SEND_MESSAGES: 1n << 11n,
  MANAGE_MESSAGES: 1n << 13n,
  EMBED_LINKS: 1n << 14n,
  ATTACH_FILES: 1n << 15n,
  READ_MESSAGE_HISTORY: 1n << 16n,
  MENTION_EVERYONE: 1n << 17n,
  USE_EXTERNAL_EMOJIS: 1n << 18n,
  CHANGE_NICKNAME: 1n << 26n,
  USE_APPLICATION_COMMANDS: 1n << 31n,
  CREATE_PUBLIC_THREADS: 1n << 35n,
  CREATE_PRIVATE_THREADS: 1n << 36n,
  SEND_MESSAGES_IN_THREADS: 1n << 38n,
} as const;

/**
 * What the bot may do in one channel: the fake's stand-in for roles and permission overwrites. A thread
 * follows its parent's. Refusals follow Discord: without VIEW_CHANNEL everything is 50001 Missing Access,
 * without the permission an action needs it is 50013 Missing Permissions, and without READ_MESSAGE_HISTORY
 * history comes back empty.
 */
export interface BotPermissions {
  readonly view: boolean;
  readonly send: boolean;
  readonly sendInThreads: boolean;
  readonly readHistory: boolean;
  readonly addReactions: boolean;
  readonly createPublicThreads: boolean;
  readonly manageMessages: boolean;
  readonly mentionEveryone: boolean;
  /** ATTACH_FILES: a message may upload files (Create Message, Edit Message). */
  readonly attachFiles: boolean;
}

/** Everything a bot invited with OpenAB's documented permissions has (reference §2.2). */
export const FULL_ACCESS: BotPermissions = {
  view: true,
  send: true,
  sendInThreads: true,
  readHistory: true,
  addReactions: true,
  createPublicThreads: true,
  manageMessages: true,
  mentionEveryone: true,
  attachFiles: true,
};

/** The permissions as Discord writes them: a decimal string of the bitfield (an interaction's `app_permissions`). */
export function permissionBits(permissions: BotPermissions): string {
  const { VIEW_CHANNEL, SEND_MESSAGES, SEND_MESSAGES_IN_THREADS, READ_MESSAGE_HISTORY, ADD_REACTIONS, CREATE_PUBLIC_THREADS, MANAGE_MESSAGES, MENTION_EVERYONE, ATTACH_FILES } = PERMISSION;
  let bits = PERMISSION.EMBED_LINKS | PERMISSION.USE_EXTERNAL_EMOJIS | PERMISSION.USE_APPLICATION_COMMANDS;
  if (permissions.view) bits |= VIEW_CHANNEL;
  if (permissions.send) bits |= SEND_MESSAGES;
  if (permissions.sendInThreads) bits |= SEND_MESSAGES_IN_THREADS;
  if (permissions.readHistory) bits |= READ_MESSAGE_HISTORY;
  if (permissions.addReactions) bits |= ADD_REACTIONS;
  if (permissions.createPublicThreads) bits |= CREATE_PUBLIC_THREADS;
  if (permissions.manageMessages) bits |= MANAGE_MESSAGES;
  if (permissions.mentionEveryone) bits |= MENTION_EVERYONE;
  if (permissions.attachFiles) bits |= ATTACH_FILES;
  return String(bits);
}

/** What @everyone has in a new guild: read, write, react, use commands and threads. */
export const EVERYONE_DEFAULT = String(
  PERMISSION.CREATE_INSTANT_INVITE |
    PERMISSION.ADD_REACTIONS |
    PERMISSION.VIEW_CHANNEL |
    PERMISSION.SEND_MESSAGES |
    PERMISSION.EMBED_LINKS |
    PERMISSION.ATTACH_FILES |
    PERMISSION.READ_MESSAGE_HISTORY |
    PERMISSION.USE_EXTERNAL_EMOJIS |
    PERMISSION.CHANGE_NICKNAME |
    PERMISSION.USE_APPLICATION_COMMANDS |
    PERMISSION.CREATE_PUBLIC_THREADS |
    PERMISSION.CREATE_PRIVATE_THREADS |
    PERMISSION.SEND_MESSAGES_IN_THREADS,
);
