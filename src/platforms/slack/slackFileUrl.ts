/** The URL fields of a file object in a Slack message's `files`. */
export interface SlackFileUrls {
  readonly url_private_download?: unknown;
  readonly url_private?: unknown;
}

/**
 * Where a shared file's bytes are fetched (§3.4 step 5): `url_private_download`, else
 * `url_private`, else `""` — the file is skipped. Both need the bot token.
 */
export function slackFileUrl(file: SlackFileUrls): string {
  if (typeof file.url_private_download === "string" && file.url_private_download !== "") return file.url_private_download;
  if (typeof file.url_private === "string" && file.url_private !== "") return file.url_private;
  return "";
}
