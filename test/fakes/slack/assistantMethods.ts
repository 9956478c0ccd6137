import { length } from "./blocks.js";
import { isTopLevel } from "./messageStore.js";
import { jsonArg, stringArg } from "./paramReaders.js";
import type { Params } from "./requestParams.js";
import { botConversation, type AssistantThreadState, type SlackContext, type WebMethod } from "./slackContext.js";
import { invalidArguments, SlackApiError } from "./slackApiError.js";

/**
 * `assistant.threads.setStatus` and `setSuggestedPrompts` (OpenAB's `assistant_mode`): `channel_id` a
 * conversation the bot is in (`channel_not_found`), `thread_ts` a thread's parent there
 * (`invalid_thread_ts`); `status` required ("" clears it), `loading_messages` 1–10 strings of 1–50
 * characters; `prompts` 1–4 objects with a non-empty `title` and `message`.
 */
export function assistantMethods(context: SlackContext): WebMethod[] {
  const threadOf = (params: Params, required: boolean): AssistantThreadState | undefined => {
    const conversation = botConversation(context, stringArg(params, "channel_id"), "write");
    const threadTs = stringArg(params, "thread_ts");
    if (threadTs === undefined && !required) return undefined;
    const parent = threadTs === undefined ? undefined : context.store.live(conversation.id, threadTs);
    if (!parent || !isTopLevel(parent.message)) throw new SlackApiError("invalid_thread_ts");
    const key = `${conversation.id}:${parent.message.ts}`;
    let state = context.assistantThreads.get(key);
    if (!state) context.assistantThreads.set(key, (state = { statuses: [], prompts: undefined }));
    return state;
  };

  return [
    {
      name: "assistant.threads.setStatus",
      token: "bot",
      json: true,
      scope: () => "chat:write",
      handle: (params) => {
        const state = threadOf(params, true)!;
        if (params.status === undefined || params.status === null) throw invalidArguments("missing required field: status [json-pointer:/status]");
        const status = stringArg(params, "status") ?? "";
        const loading = jsonArg(params, "loading_messages");
        if (loading.given) {
          const messages = loading.value;
          if (!Array.isArray(messages) || messages.length < 1 || messages.length > 10) throw invalidArguments("must be 1 to 10 items [json-pointer:/loading_messages]");
          if (messages.some((each) => typeof each !== "string" || each === "" || length(each) > 50)) throw invalidArguments("must be strings of 1 to 50 characters [json-pointer:/loading_messages]");
        }
        state.statuses.push(status);
        return {};
      },
    },
    {
      name: "assistant.threads.setSuggestedPrompts",
      token: "bot",
      json: true,
      scope: () => "assistant:write",
      handle: (params) => {
        const state = threadOf(params, false);
        const prompts = jsonArg(params, "prompts").value;
        if (!Array.isArray(prompts) || prompts.length < 1 || prompts.length > 4) throw invalidArguments("must be 1 to 4 items [json-pointer:/prompts]");
        prompts.forEach((prompt: unknown, index) => {
          const { title, message } = (prompt ?? {}) as { title?: unknown; message?: unknown };
          if (typeof title !== "string" || title === "" || typeof message !== "string" || message === "") throw invalidArguments(`must have a title and a message [json-pointer:/prompts/${index}]`);
        });
        if (state) state.prompts = { title: stringArg(params, "title"), prompts: prompts as { title: string; message: string }[] };
        return {};
      },
    },
  ];
}
