import type { ChatMessage } from "./chatCompletions.js";

/** Turns of history a session keeps for the model; older turns are forgotten whole. */
export const HISTORY_TURNS = 20;

/**
 * The text a model sees for an ACP prompt: text blocks (the broker's `<sender_context>` block
 * included: it says who is talking), embedded text resources, and links as `name: uri`, joined by
 * blank lines. Images and audio are not advertised, so they are skipped.
 */
export function promptText(blocks: readonly unknown[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    if (typeof block !== "object" || block === null) continue;
    const { type, text, resource, uri, name } = block as Record<string, unknown>;
    if (type === "text" && typeof text === "string") parts.push(text);
    else if (type === "resource_link" && typeof uri === "string") parts.push(`${typeof name === "string" ? name : "link"}: ${uri}`);
    else if (type === "resource" && typeof resource === "object" && resource !== null) {
      const embedded = (resource as Record<string, unknown>).text;
      if (typeof embedded === "string") parts.push(embedded);
    }
  }
  return parts.join("\n\n");
}

/**
 * The messages with a result added for every tool call that has none (a turn cancelled or ended
 * mid-step), so the history stays a conversation the API accepts on the next turn.
 */
export function closeOpenToolCalls(messages: readonly ChatMessage[], note: string): ChatMessage[] {
  const closed: ChatMessage[] = [];
  let open: string[] = [];
  const answerOpenCalls = (): void => {
    for (const id of open) closed.push({ role: "tool", tool_call_id: id, content: note });
    open = [];
  };
  for (const message of messages) {
    if (message.role === "tool") {
      open = open.filter((id) => id !== message.tool_call_id);
      closed.push(message);
      continue;
    }
    answerOpenCalls();
    closed.push(message);
    if (message.role === "assistant") open = (message.tool_calls ?? []).map((call) => call.id);
  }
  answerOpenCalls();
  return closed;
}
