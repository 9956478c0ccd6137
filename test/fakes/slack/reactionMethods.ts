import { isKnownEmoji } from "./emojiNames.js";
import { stringArg, TS } from "./paramReaders.js";
import type { Params } from "./requestParams.js";
import { botConversation, type SlackContext, type WebMethod } from "./slackContext.js";
import { SlackApiError } from "./slackApiError.js";

/**
 * `reactions.add` and `reactions.remove` on a message, by the bot: `channel` and `timestamp` both given
 * (`no_item_specified`), a timestamp in Slack's form (`bad_timestamp`) naming a message there
 * (`message_not_found`), `name` a short name this workspace knows, without colons (`invalid_name`; the
 * fake does not strip `:eyes:` to `eyes`); adding one the bot already added is `already_reacted`,
 * removing one it did not add `no_reaction`.
 */
export function reactionMethods(context: SlackContext): WebMethod[] {
  const reaction = (params: Params) => {
    const channel = stringArg(params, "channel");
    const timestamp = stringArg(params, "timestamp");
    if (channel === undefined || timestamp === undefined) throw new SlackApiError("no_item_specified");
    const conversation = botConversation(context, channel, "write");
    if (!TS.test(timestamp)) throw new SlackApiError("bad_timestamp");
    const name = stringArg(params, "name");
    if (name === undefined || !isKnownEmoji(name, context.customEmoji)) throw new SlackApiError("invalid_name");
    const stored = context.store.live(conversation.id, timestamp);
    if (!stored) throw new SlackApiError("message_not_found");
    return { stored, name, users: stored.reactions.get(name) ?? [] };
  };
  const botUser = context.bot.user.id;
  const scope = () => "reactions:write";

  return [
    {
      name: "reactions.add",
      token: "bot",
      json: true,
      scope,
      handle: (params) => {
        const { stored, name, users } = reaction(params);
        if (users.includes(botUser)) throw new SlackApiError("already_reacted");
        stored.reactions.set(name, [...users, botUser]);
        return {};
      },
    },
    {
      name: "reactions.remove",
      token: "bot",
      json: true,
      scope,
      handle: (params) => {
        const { stored, name, users } = reaction(params);
        if (!users.includes(botUser)) throw new SlackApiError("no_reaction");
        const rest = users.filter((user) => user !== botUser);
        if (rest.length === 0) stored.reactions.delete(name);
        else stored.reactions.set(name, rest);
        return {};
      },
    },
  ];
}
