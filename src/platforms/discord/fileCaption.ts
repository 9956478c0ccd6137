import { splitMessage } from "../../../operators/delivery/text/splitMessage.js";
import { plainParts } from "./plainParts.js";

/** Where a file's caption goes: with the file (its message's content), or after it as text messages. */
export interface FileCaption {
  /** The file's message's content; undefined when the caption is empty or goes after. */
  readonly with: string | undefined;
  /** Text messages that follow the file's, in order; empty when the caption went with it. */
  readonly after: readonly string[];
}

/**
 * A file's caption as Discord messages of at most `limit` characters: one that fits (a plain text
 * counted with its escapes) is the content of the file's message; a longer one follows the file
 * whole, split as a text send is (`splitMessage`, `plainParts`), so no part of it is cut off from
 * the rest by the file. An empty caption is neither.
 */
export function fileCaption(text: string, plain: boolean, limit: number): FileCaption {
  if (text === "") return { with: undefined, after: [] };
  const parts = plain ? plainParts(text, limit) : splitMessage(text, limit);
  return parts.length === 1 ? { with: parts[0], after: [] } : { with: undefined, after: parts };
}
