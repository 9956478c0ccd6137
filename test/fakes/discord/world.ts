import type { Lookup } from "./apiObjects.js";
import type { Cdn } from "./cdn.js";
import type { StoredMessage } from "./channels.js";
import type { FakeUser } from "./directory.js";
import type { GatewaySession, GatewaySessions } from "./gatewaySessions.js";
import { contentVisible, INTENT } from "./intents.js";
import type { Snowflakes } from "./snowflakes.js";

/** Everything the fake's parts share: who is who, the channels and their messages, the bot's sessions. */
export interface World extends Lookup {
  readonly bot: FakeUser;
  readonly applicationId: string;
  readonly ids: Snowflakes;
  readonly cdn: Cdn;
  readonly sessions: GatewaySessions;
  /** The largest file a message may upload, in bytes (`readUploads`). */
  readonly uploadLimitBytes: number;
  /** Privileged intents enabled for the bot in the Developer Portal. */
  readonly privilegedIntents: number;
  readonly now: () => number;
}

/** Whether REST answers show a message's content: the portal's MESSAGE_CONTENT decides there, not a session's intents. */
export function restReadable(world: World): (message: StoredMessage) => boolean {
  const enabled = (world.privilegedIntents & INTENT.MESSAGE_CONTENT) !== 0;
  return (message) => contentVisible(message, world.channels, world.bot.id, enabled);
}

/** Whether a gateway session is shown a message's content: the intents it identified with decide. */
export function sessionReadable(world: World, session: GatewaySession): (message: StoredMessage) => boolean {
  const granted = (session.intents & INTENT.MESSAGE_CONTENT) !== 0;
  return (message) => contentVisible(message, world.channels, world.bot.id, granted);
}
