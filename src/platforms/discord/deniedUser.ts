/**
 * OpenAB's `is_denied_user`: a human outside a restrictive `allowed_users`. Never a bot: bots have
 * their own gate (`allow_bot_messages`, `trusted_bot_ids`).
 */
export function isDeniedUser(author: { readonly id: string; readonly isBot: boolean }, users: { readonly allowAll: boolean; readonly allowedUsers: ReadonlySet<string> }): boolean {
  return !author.isBot && !users.allowAll && !users.allowedUsers.has(author.id);
}
