import * as z from "zod";
import { httpUrl, stringList } from "../fields.js";
import { expecting } from "../problems/expected.js";
import { chatGateKeys, resolveAllowAll, type ChatGates } from "./chatGates.js";

/**
 * `[slack]`: turnstream's own Slack connection (OpenAB's core connects natively too: Socket Mode
 * with the app-level token, the Web API with the bot token). Every key of OpenAB's `SlackConfig`
 * with its default, so an OpenAB `[slack]` drops in; then turnstream's `api_root`.
 *
 * `assistant_mode` (newer upstream, PR #995, default `true` there) is not built: `false` is
 * accepted, `true` refused with one line. An absent key means `false` — the v0.8.3 behaviour
 * (reactions and post-and-edit streaming) — rather than upstream's newer default, since turnstream
 * has nothing else to run. Channel and user ids are kept as written (`C…`, `G…`, `D…`, `U…`), as
 * upstream: Slack ids are not parsed.
 */

export const DEFAULT_SLACK_API_ROOT = "https://slack.com/api/";

export interface SlackConfig extends ChatGates {
  /** `xoxb-…`: every Web API call (secret). */
  readonly bot_token: string;
  /** `xapp-…`: only `apps.connections.open`, for the Socket Mode URL (secret). */
  readonly app_token: string;
  /** Channel ids (`C…`, `G…`, and `D…` for DMs when the list restricts). */
  readonly allowed_channels: readonly string[];
  /** Human user ids (`U…`); never applied to bots. */
  readonly allowed_users: readonly string[];
  /** When non-empty, only these bots pass the bot gate: a bot's `B…` id or its `U…` user id. */
  readonly trusted_bot_ids: readonly string[];
  /** Always `false`: assistant mode is not built (`true` is refused). */
  readonly assistant_mode: false;
  /** Text turns stream (a `…` message edited in place); `false`: each reply is sent once. */
  readonly streaming: boolean;
  /** The Web API's root, ending in `/` (WebClient's `slackApiUrl`). */
  readonly api_root: string;
}

/**
 * A token of one kind: the prefix Slack gives it, then no spaces (a pasted newline is a mistake, not
 * a token). Its problems quote nothing of the value (`valueFree`), so they read the same masked or not.
 */
function token(prefix: "xoxb-" | "xapp-", what: string, shape: { readonly says: string; readonly holds: (value: string) => boolean } = { says: `starting with "${prefix}"`, holds: () => true }) {
  const expected = `${what} ${shape.says}`;
  const schema = z.string().superRefine((value, ctx) => {
    const refuse = (message: string) => ctx.addIssue({ code: "custom", message, input: value, params: { valueFree: true } });
    if (value === "") refuse(`is empty (an unset \${VAR}?); expected ${expected}`);
    else if (!value.startsWith(prefix) || /\s/.test(value) || !shape.holds(value)) refuse(`is not ${what} (value hidden); expected ${expected}`);
  });
  return expecting(schema, expected);
}

/**
 * The app's id from its app-level token (`xapp-1-A0123ABC-…`), or `undefined` for one not shaped
 * so: public, the app's own id in Slack, which names its receiver lease.
 */
export function slackAppIdOf(appToken: string): string | undefined {
  return /^xapp-\d+-([A-Z0-9]+)-\S/.exec(appToken)?.[1];
}

const slackKeys = z.strictObject({
  bot_token: token("xoxb-", "a Bot User OAuth token"),
  app_token: token("xapp-", "an app-level token with connections:write", { says: 'shaped "xapp-<n>-<app id>-…"', holds: (value) => slackAppIdOf(value) !== undefined }),
  allowed_channels: stringList().default(() => []),
  allowed_users: stringList().default(() => []),
  ...chatGateKeys,
  assistant_mode: z
    .boolean()
    .refine((on) => !on, { message: "true is not supported: Slack's assistant mode (status line, Cancel button, native streaming) is not built; set assistant_mode = false for reactions and edited replies" })
    .default(false),
  streaming: z.boolean().default(true),
  // turnstream's own.
  api_root: httpUrl().default(DEFAULT_SLACK_API_ROOT),
});

type SlackKeys = z.output<typeof slackKeys>;

function resolveSlack(keys: SlackKeys): SlackConfig {
  return {
    bot_token: keys.bot_token,
    app_token: keys.app_token,
    allow_all_channels: resolveAllowAll(keys.allow_all_channels, keys.allowed_channels),
    allowed_channels: keys.allowed_channels,
    allow_all_users: resolveAllowAll(keys.allow_all_users, keys.allowed_users),
    allowed_users: keys.allowed_users,
    allow_bot_messages: keys.allow_bot_messages,
    trusted_bot_ids: keys.trusted_bot_ids,
    allow_user_messages: keys.allow_user_messages,
    max_bot_turns: keys.max_bot_turns,
    message_processing_mode: keys.message_processing_mode,
    max_buffered_messages: keys.max_buffered_messages,
    max_batch_tokens: keys.max_batch_tokens,
    assistant_mode: false,
    streaming: keys.streaming,
    api_root: withOneTrailingSlash(keys.api_root),
  };
}

function withOneTrailingSlash(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === "/") end -= 1;
  return `${url.slice(0, end)}/`;
}

/** `[slack]`: optional; when present, `bot_token` and `app_token` are required. */
export const slackSection = slackKeys.transform((keys): SlackConfig => resolveSlack(keys));
