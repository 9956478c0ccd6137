import { REPLY_TOOL_NAME, type ReplyToolOptions } from "./replyTool.js";

/**
 * The system-prompt section that teaches a model to reply through the `reply` tool: one message by
 * default, never a sentence or a copy-ready block split across messages, at most `maxBubbles`,
 * how to stay silent, and no claimed success before a tool confirms it. Append it to the agent's
 * own system prompt.
 */
export function replyPromptAppendix({ mode, maxBubbles, maxBubbleChars = 0 }: ReplyToolOptions): string {
  const tool = `\`${REPLY_TOOL_NAME}\``;
  const lines =
    mode === "envelope"
      ? [
          "## Replying",
          "",
          `The user only sees what you pass to the ${tool} tool. Each string in \`messages\` arrives as its own chat message, in order. Calling ${tool} ends your turn, so finish any other tool calls first and call it once.`,
          "",
          ...sharedRules(maxBubbles, "in one reply"),
          ...(maxBubbleChars > 0 ? [`- Keep each message under ${maxBubbleChars} characters.`] : []),
          `- To say nothing at all, call ${tool} with empty \`messages\` and \`next: "silent"\`.`,
          `- Use \`next: "wait"\` when you have asked the user something and need the answer; otherwise \`"stop"\`.`,
        ]
      : [
          "## Replying",
          "",
          `The user only sees what you pass to the ${tool} tool. Each string in \`messages\` is sent as its own chat message the moment you call it, so you can tell the user what you are doing, keep working with other tools, and call ${tool} again with the result. Your turn ends when you stop calling tools.`,
          "",
          ...sharedRules(maxBubbles, "in the whole turn"),
          `- To say nothing at all, do not call ${tool} and end your turn without any text.`,
        ];
  return lines.join("\n");
}

function sharedRules(maxBubbles: number, scope: string): string[] {
  return [
    "- Reply in one message unless a second one really helps, such as a short acknowledgement before a slow answer.",
    "- Never split a sentence across messages, and never split a block meant to be copied (code, a command, an address, a list); one message may span several lines.",
    `- Send at most ${maxBubbles} ${maxBubbles === 1 ? "message" : "messages"} ${scope}.`,
    "- Never say an action succeeded until a tool result has confirmed it.",
  ];
}
