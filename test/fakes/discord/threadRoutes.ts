import { channelObject } from "./apiObjects.js";
import { ARCHIVE_DURATIONS, CHANNEL_TYPE } from "./channels.js";
import { missingPermissions, threadAlreadyCreated, wrongChannelType } from "./discordApiError.js";
import { FormErrors, badLength, choices, intAtLeast, intAtMost, isObject, lengthOf, notInteger, notObject, notString, required } from "./formErrors.js";
import { messageEvent, threadCreateEvent } from "./gatewayEvents.js";
import { visibleChannel } from "./messagePosting.js";
import type { Route } from "./restRouter.js";
import type { World } from "./world.js";

/** A thread's auto-archive duration when the request gives none: a channel's default, one day. */
const DEFAULT_ARCHIVE_MINUTES = 1440;

/**
 * Start Thread from Message (docs: Resources › Channel): in a text channel a PUBLIC_THREAD (an announcement
 * channel's is an ANNOUNCEMENT_THREAD) whose id is the message's, so a message has at most one thread
 * (160004); name 1–100 characters; auto_archive_duration one of 60, 1440, 4320, 10080. Not in a thread, a
 * DM or a forum (50024). Fires THREAD_CREATE and the starter message's MESSAGE_UPDATE.
 */
export function threadRoutes(world: World): Route[] {
  return [
    {
      name: "startThreadFromMessage",
      method: "POST",
      path: "/channels/{channel.id}/messages/{message.id}/threads",
      handle: ({ params, json }) => {
        const channel = visibleChannel(world, params["channel.id"]!);
        if (channel.type !== CHANNEL_TYPE.GUILD_TEXT && channel.type !== CHANNEL_TYPE.GUILD_ANNOUNCEMENT) throw wrongChannelType();
        const message = world.channels.knownMessage(channel, params["message.id"]!);
        if (!world.channels.permissionsOf(channel).createPublicThreads) throw missingPermissions();
        const { name, autoArchiveDuration } = readThreadBody(json);
        if (message.threadId !== undefined) throw threadAlreadyCreated();
        const thread = world.channels.addThread(channel, {
          name,
          ownerId: world.bot.id,
          type: channel.type === CHANNEL_TYPE.GUILD_ANNOUNCEMENT ? 10 : CHANNEL_TYPE.PUBLIC_THREAD,
          starterMessageId: message.id,
          autoArchiveDuration: autoArchiveDuration ?? DEFAULT_ARCHIVE_MINUTES,
        });
        message.threadId = thread.id;
        world.sessions.dispatch(threadCreateEvent(world, thread));
        world.sessions.dispatch(messageEvent(world, "MESSAGE_UPDATE", message));
        return { status: 200, body: channelObject(thread, world) };
      },
    },
  ];
}

function readThreadBody(json: unknown): { name: string; autoArchiveDuration: number | undefined } {
  const errors = new FormErrors();
  const body = isObject(json) ? json : {};
  if (json !== undefined && !isObject(json)) errors.add([], notObject);
  if (body.name === undefined || body.name === null) errors.add(["name"], required);
  else if (typeof body.name !== "string") errors.add(["name"], notString(body.name));
  else if (lengthOf(body.name) < 1 || lengthOf(body.name) > 100) errors.add(["name"], badLength(1, 100));
  const duration = body.auto_archive_duration;
  if (duration !== undefined && duration !== null && !(ARCHIVE_DURATIONS as readonly unknown[]).includes(duration)) errors.add(["auto_archive_duration"], choices(ARCHIVE_DURATIONS));
  const slowmode = body.rate_limit_per_user;
  if (slowmode !== undefined && slowmode !== null) {
    if (!Number.isInteger(slowmode)) errors.add(["rate_limit_per_user"], notInteger(slowmode));
    else if ((slowmode as number) > 21600) errors.add(["rate_limit_per_user"], intAtMost(21600));
    else if ((slowmode as number) < 0) errors.add(["rate_limit_per_user"], intAtLeast(0));
  }
  errors.throwIfAny();
  return { name: body.name as string, autoArchiveDuration: (duration ?? undefined) as number | undefined };
}
