import type { Directory, FakeGuild } from "./directory.js";
import { choices, isObject, maxLength, notBoolean, notList, notObject, notSnowflake, type FormErrors } from "./formErrors.js";
import { readSnowflake } from "./snowflakes.js";

/** Who a message pings: the message object's `mentions`, `mention_roles` and `mention_everyone`. */
export interface Mentions {
  readonly userIds: string[];
  readonly roleIds: string[];
  readonly everyone: boolean;
}

/** A request's `allowed_mentions` (docs: Resources › Message › Allowed Mentions Object). */
export interface AllowedMentions {
  readonly parse: ReadonlySet<"users" | "roles" | "everyone">;
  readonly users: readonly string[];
  readonly roles: readonly string[];
  readonly repliedUser: boolean;
}

const PARSE_TYPES = ["roles", "users", "everyone"] as const;

/**
 * The mentions Discord finds in content: `<@id>` and `<@!id>` of users it knows, `<@&id>` of the guild's
 * roles, `@everyone` and `@here` when the author may use them; then narrowed by `allowed_mentions` (absent:
 * everything is parsed, as for a regular message). `repliedAuthorId` is pinged when a reply asks for it.
 */
export function mentionsIn(
  content: string,
  scope: { readonly directory: Directory; readonly guild: FakeGuild | undefined; readonly canMentionEveryone: boolean },
  allowed: AllowedMentions | undefined,
  repliedAuthorId?: string,
): Mentions {
  const users = unique([...content.matchAll(/<@!?(\d{1,20})>/g)].map((match) => match[1]!)).filter((id) => scope.directory.user(id) !== undefined);
  const roles = scope.guild ? unique([...content.matchAll(/<@&(\d{1,20})>/g)].map((match) => match[1]!)).filter((id) => scope.guild!.roles.has(id)) : [];
  const everyone = scope.canMentionEveryone && /@(everyone|here)\b/.test(content);
  const userIds = allowed ? users.filter((id) => allowed.parse.has("users") || allowed.users.includes(id)) : users;
  if (repliedAuthorId !== undefined && (allowed?.repliedUser ?? false) && !userIds.includes(repliedAuthorId)) userIds.push(repliedAuthorId);
  return {
    userIds,
    roleIds: allowed ? roles.filter((id) => allowed.parse.has("roles") || allowed.roles.includes(id)) : roles,
    everyone: everyone && (allowed ? allowed.parse.has("everyone") : true),
  };
}

/** Reads `allowed_mentions`, adding Discord's refusals to `errors` (parse is exclusive with users/roles lists). */
export function readAllowedMentions(value: unknown, errors: FormErrors): AllowedMentions | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) {
    errors.add(["allowed_mentions"], notObject);
    return undefined;
  }
  const parse = new Set<AllowedMentions["parse"] extends ReadonlySet<infer T> ? T : never>();
  if (value.parse !== undefined && value.parse !== null) {
    if (!Array.isArray(value.parse)) errors.add(["allowed_mentions", "parse"], notList);
    else
      value.parse.forEach((type, index) => {
        if ((PARSE_TYPES as readonly unknown[]).includes(type)) parse.add(type as (typeof PARSE_TYPES)[number]);
        else errors.add(["allowed_mentions", "parse", index], choices(PARSE_TYPES));
      });
  }
  const users = idList(value.users, "users", errors);
  const roles = idList(value.roles, "roles", errors);
  for (const [kind, ids] of [["users", users], ["roles", roles]] as const) {
    if (parse.has(kind) && ids.length > 0) {
      errors.add(["allowed_mentions"], { code: "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE", message: `parse:["${kind}"] and ${kind}: [ids...] are mutually exclusive.` });
    }
  }
  if (value.replied_user !== undefined && value.replied_user !== null && typeof value.replied_user !== "boolean") errors.add(["allowed_mentions", "replied_user"], notBoolean);
  return { parse, users, roles, repliedUser: value.replied_user === true };
}

function idList(value: unknown, field: "users" | "roles", errors: FormErrors): string[] {
  // A null or an empty list is accepted beside parse (the docs say so); a list of ids is not.
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    errors.add(["allowed_mentions", field], notList);
    return [];
  }
  if (value.length > 100) errors.add(["allowed_mentions", field], maxLength(100));
  const ids: string[] = [];
  value.forEach((id, index) => {
    const read = readSnowflake(id);
    if (read === undefined) errors.add(["allowed_mentions", field, index], notSnowflake(id));
    else ids.push(read);
  });
  return ids;
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}
