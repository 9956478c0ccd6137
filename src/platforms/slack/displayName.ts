/** The fields of a `users.info` user the display name is read from. */
export interface SlackUserRecord {
  readonly name?: unknown;
  readonly profile?: { readonly display_name?: unknown; readonly real_name?: unknown } | null;
}

/**
 * How a person is named to the agent (§3.8): the first non-empty of `profile.display_name`,
 * `profile.real_name` and `name`; the raw user id when none is (or the lookup failed).
 */
export function displayNameOf(user: SlackUserRecord | undefined, userId: string): string {
  for (const candidate of [user?.profile?.display_name, user?.profile?.real_name, user?.name]) {
    if (typeof candidate === "string" && candidate.trim() !== "") return candidate;
  }
  return userId;
}
