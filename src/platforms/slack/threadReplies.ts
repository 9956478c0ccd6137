/** The fields of a message in a `conversations.replies` answer that the thread rules read. */
export interface ThreadMessage {
  readonly user?: unknown;
  readonly bot_id?: unknown;
  readonly subtype?: unknown;
  readonly text?: unknown;
}

/** What one fetch of a thread says about the bot's place in it (§3.5). */
export interface Participation {
  /** The thread's parent mentions the bot, or the bot posted in it. */
  readonly involved: boolean;
  /** Another bot (not this one) posted in the thread. */
  readonly otherBot: boolean;
}

/** Whether a message in a thread was posted by a bot: it has a `bot_id`, or is a legacy `bot_message`. */
export function isBotMessage(message: ThreadMessage): boolean {
  return (typeof message.bot_id === "string" && message.bot_id !== "") || message.subtype === "bot_message";
}

/**
 * The participation rule over a thread's messages, oldest (the parent) first (upstream's
 * `bot_participated_in_thread`): involved when the parent's text mentions the bot (`<@BOTUID>`, or
 * labelled) or any message's `user` is the bot; another bot when any bot message's `user` is not the
 * bot. A mention later in the thread does not count, as upstream.
 */
export function participationOf(messages: readonly ThreadMessage[], botUserId: string): Participation {
  const parent = messages[0];
  const parentText = typeof parent?.text === "string" ? parent.text : "";
  let involved = parentText.includes(`<@${botUserId}>`) || parentText.includes(`<@${botUserId}|`);
  let otherBot = false;
  for (const message of messages) {
    if (message.user === botUserId) involved = true;
    else if (isBotMessage(message)) otherBot = true;
  }
  return { involved, otherBot };
}

/** How many of a thread's newest messages in a row are bots' (any bot, this one included): §3.3 step 6's loop check. */
export function trailingBotRun(messages: readonly ThreadMessage[]): number {
  let run = 0;
  for (let at = messages.length - 1; at >= 0 && isBotMessage(messages[at] as ThreadMessage); at--) run++;
  return run;
}
