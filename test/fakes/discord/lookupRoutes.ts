import { channelObject, memberObject, userObject } from "./apiObjects.js";
import { FormErrors, isObject, notSnowflake, required } from "./formErrors.js";
import type { Route } from "./restRouter.js";
import { readSnowflake } from "./snowflakes.js";
import type { World } from "./world.js";

/** What GET /gateway/bot tells a client (docs: Events › Gateway › Get Gateway Bot). */
export interface GatewayBotInfo {
  readonly url: string;
  readonly shards: number;
  readonly session_start_limit: { readonly total: number; readonly remaining: number; readonly reset_after: number; readonly max_concurrency: number };
}

/** Who is who: the gateway URL, the bot itself, users, guild members, and the bot's DM channels. */
export function lookupRoutes(world: World, gatewayBot: () => GatewayBotInfo): Route[] {
  return [
    { name: "getGatewayBot", method: "GET", path: "/gateway/bot", handle: () => ({ status: 200, body: gatewayBot() }) },
    {
      name: "getCurrentUser",
      method: "GET",
      path: "/users/@me",
      handle: () => ({ status: 200, body: { ...userObject(world.bot), verified: true, mfa_enabled: false, email: null, locale: "en-US", premium_type: 0, bio: "" } }),
    },
    { name: "getUser", method: "GET", path: "/users/{user.id}", handle: ({ params }) => ({ status: 200, body: userObject(world.directory.knownUser(params["user.id"]!)) }) },
    {
      name: "getGuildMember",
      method: "GET",
      path: "/guilds/{guild.id}/members/{user.id}",
      handle: ({ params }) => ({ status: 200, body: memberObject(world.directory.knownMember(params["guild.id"]!, params["user.id"]!), world.directory, true) }),
    },
    {
      name: "createDm",
      method: "POST",
      path: "/users/@me/channels",
      handle: ({ json }) => {
        const errors = new FormErrors();
        const recipient = isObject(json) ? readSnowflake(json.recipient_id) : undefined;
        if (!isObject(json) || json.recipient_id === undefined) errors.add(["recipient_id"], required);
        else if (recipient === undefined) errors.add(["recipient_id"], notSnowflake(json.recipient_id));
        errors.throwIfAny();
        world.directory.knownUser(recipient!);
        return { status: 200, body: channelObject(world.channels.dmWith(recipient!), world) };
      },
    },
  ];
}
