import { DiscordApiError, missingPermissions, unknownEmoji } from "./discordApiError.js";
import { reactionEvent } from "./gatewayEvents.js";
import { visibleChannel } from "./messagePosting.js";
import { readReactionEmoji } from "./reactionEmoji.js";
import type { Route, RouteArgs } from "./restRouter.js";
import type { World } from "./world.js";

const OWN_REACTION = "/channels/{channel.id}/messages/{message.id}/reactions/{emoji}/@me";

/** Create Reaction and Delete Own Reaction: 204 on success, each a MESSAGE_REACTION_ADD/REMOVE. */
export function reactionRoutes(world: World): Route[] {
  return [
    {
      name: "createReaction",
      method: "PUT",
      path: OWN_REACTION,
      handle: (args) => {
        const { message, emoji, permissions } = target(world, args);
        const reaction = message.reactions.get(emoji.key);
        // ADD_REACTIONS is needed only to be the first with this emoji (docs: Create Reaction).
        if (!reaction?.users.size && !permissions.addReactions) throw missingPermissions();
        if (!reaction && message.reactions.size >= 20) throw new DiscordApiError(400, { message: "Maximum number of reactions reached (20)", code: 30010 });
        const kept = reaction ?? { emoji: { id: emoji.id, name: emoji.name }, users: new Set<string>() };
        message.reactions.set(emoji.key, kept);
        if (!kept.users.has(world.bot.id)) {
          kept.users.add(world.bot.id);
          world.sessions.dispatch(reactionEvent(world, "MESSAGE_REACTION_ADD", message, kept, world.bot.id));
        }
        return { status: 204 };
      },
    },
    {
      name: "deleteOwnReaction",
      method: "DELETE",
      path: OWN_REACTION,
      handle: (args) => {
        const { message, emoji } = target(world, args);
        const reaction = message.reactions.get(emoji.key);
        if (reaction?.users.delete(world.bot.id)) world.sessions.dispatch(reactionEvent(world, "MESSAGE_REACTION_REMOVE", message, reaction, world.bot.id));
        return { status: 204 };
      },
    },
  ];
}

function target(world: World, { params }: RouteArgs) {
  const channel = visibleChannel(world, params["channel.id"]!);
  const permissions = world.channels.permissionsOf(channel);
  const message = world.channels.knownMessage(channel, params["message.id"]!);
  if (!permissions.readHistory) throw missingPermissions();
  const emoji = readReactionEmoji(params.emoji!, world.directory);
  if (!emoji) throw unknownEmoji();
  return { message, emoji, permissions };
}
