import { afterEach, beforeEach } from "vitest";
import { Api, GrammyError } from "grammy";
import { FakeBotApi, type FakeBotApiOptions } from "./index.js";

export const TOKEN = "123456789:AAF4kE-test_token-for-the-fake-bot-api";
export const BOT = { id: 123456789, username: "turnstream_test_bot", first_name: "Turnstream" } as const;

/** A fake Bot API started before each test and closed after it, with grammY's own client pointed at it. */
export function useFakeBotApi(options: Partial<FakeBotApiOptions> = {}): { readonly api: FakeBotApi; readonly client: Api } {
  const current: { api?: FakeBotApi; client?: Api } = {};
  beforeEach(async () => {
    current.api = await FakeBotApi.start({ token: TOKEN, bot: BOT, ...options });
    current.client = new Api(TOKEN, { apiRoot: current.api.root });
  });
  afterEach(async () => {
    await current.api?.close();
  });
  return {
    get api() {
      return current.api!;
    },
    get client() {
      return current.client!;
    },
  };
}

/** The GrammyError a call is refused with (fails the test if the call succeeds). */
export async function refusal(call: Promise<unknown>): Promise<GrammyError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof GrammyError) return error;
    throw error;
  }
  throw new Error("the fake Bot API accepted a call it should refuse");
}

/** A user, their private chat with the bot, a group, and a forum supergroup with one topic. */
export function someChats(api: FakeBotApi) {
  const alice = api.addUser({ id: 1001, first_name: "Alice", username: "alice_tg" });
  const dm = api.addPrivateChat(alice);
  const group = api.addGroup({ title: "Plain group" });
  const supergroup = api.addSupergroup({ title: "Supergroup", username: "turnstream_sg" });
  const forum = api.addSupergroup({ title: "Forum", isForum: true });
  const topic = api.addTopic(forum.id, "Design", alice);
  return { alice, dm, group, supergroup, forum, topic };
}

/** Waits until `check` holds (polling every 10 ms); fails the test after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
