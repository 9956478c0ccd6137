import type { SendReceipt } from "../../../operators/delivery/outboundMessage.js";

/** Where Slack says a file was shared: by conversation, the messages that show it. */
interface FileShares {
  readonly public?: Readonly<Record<string, readonly ShareEntry[] | undefined>>;
  readonly private?: Readonly<Record<string, readonly ShareEntry[] | undefined>>;
}

interface ShareEntry {
  readonly ts?: unknown;
  readonly thread_ts?: unknown;
}

/** A file as `files.completeUploadExternal` answers it: its id, and `shares` when Slack had shared it by then. */
export interface CompletedFile {
  readonly id?: unknown;
  readonly shares?: FileShares;
}

/**
 * The receipt of a file posted with `filesUploadV2`, the most honest Slack allows. Slack's
 * `files.completeUploadExternal` names no message: its documented answer is the files' ids and
 * titles, and it shares a file asynchronously (Slack's maintainers: "in many cases, the API
 * response does not yet have complete shares in it", slackapi/bolt-js#2115). So: the `ts` of the
 * message that shows the file in `channel` (in `thread`, when it went to one), when the answer's
 * `shares` already list it; else the file's id (`F…`), which names the file, not a message — an
 * edit, delete or reaction aimed at it is refused without a call, as any id that is no `ts`.
 * Undefined when the answer names no file at all. The one place this limitation is handled
 * (docs/platforms.md, Slack replies, says it too).
 */
export function uploadReceipt(completions: readonly { readonly files?: readonly CompletedFile[] }[] | undefined, channel: string, thread: string | undefined): SendReceipt | undefined {
  const file = completions?.[0]?.files?.[0];
  if (file === undefined) return undefined;
  const entries = [...(file.shares?.public?.[channel] ?? []), ...(file.shares?.private?.[channel] ?? [])];
  const shown = entries.find((entry) => typeof entry.ts === "string" && (thread === undefined ? entry.thread_ts === undefined || entry.thread_ts === entry.ts : entry.thread_ts === thread));
  if (shown !== undefined) return { messageId: shown.ts as string };
  return typeof file.id === "string" && file.id !== "" ? { messageId: file.id } : undefined;
}
