import type { API } from "@discordjs/core";
import { DiscordAPIError } from "@discordjs/rest";
import type { Logger } from "../../log/logger.js";
import { AUTO_ARCHIVE_MINUTES } from "./discordReplies.js";
import { isThreadAlreadyExists } from "./threadAlreadyExists.js";

/** Why no thread could be opened for a message. */
export class ThreadOpenError extends Error {
  override readonly name = "ThreadOpenError";
  constructor(
    readonly reason: "create_failed" | "race_refetch_failed" | "race_no_thread",
    options?: ErrorOptions,
  ) {
    super(`no thread for the message (${reason})`, options);
  }
}

/**
 * Opens the conversation's thread from the triggering message (§2.5): a public thread named by
 * `shortenThreadName`, archived after a day without messages. Discord allows one thread per
 * message, so when another bot answering the same message opened it first (160004), this bot
 * joins that thread: the message is read again and its `thread` taken.
 */
export async function openThread(api: API, logger: Logger, where: { readonly channelId: string; readonly messageId: string; readonly name: string }): Promise<string> {
  try {
    const thread = await api.channels.createThread(where.channelId, { name: where.name, auto_archive_duration: AUTO_ARCHIVE_MINUTES }, where.messageId);
    return thread.id;
  } catch (err) {
    if (!isThreadAlreadyExists(errorText(err))) throw new ThreadOpenError("create_failed", { cause: err });
  }
  let threadId: string | undefined;
  try {
    threadId = (await api.channels.getMessage(where.channelId, where.messageId)).thread?.id;
  } catch (err) {
    throw new ThreadOpenError("race_refetch_failed", { cause: err });
  }
  if (threadId === undefined) throw new ThreadOpenError("race_no_thread");
  logger.info({ reason: "thread_exists", channelId: where.channelId, threadId }, "discord joining the thread another bot opened from the same message");
  return threadId;
}

function errorText(err: unknown): string {
  return err instanceof DiscordAPIError ? `${err.code} ${err.message}` : String((err as Error | undefined)?.message ?? "");
}
