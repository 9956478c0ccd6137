import type { Chat, User } from "grammy/types";
import type { FakeBotApi } from "../fakes/telegram/index.js";

// Many users, each in a DM with the bot, each message naming itself (`say <tag>`: the scripted
// agent answers with the tag alone), so what each chat shows can be counted per message: the
// Telegram scale-out and kill -9 suites (test/e2e/telegramScaleOut.test.ts, telegramKill*.test.ts).

export interface TaggedChats {
  readonly chats: readonly { readonly user: User; readonly dm: Chat.PrivateChat }[];
  /** Every tag sent so far, in order. */
  readonly sent: string[];
  /** Sends the next message of chat `index`, `say <tag>`; returns its tag. */
  send(index: number): string;
  /** How many bot messages in each chat answer each tag sent there (a recovered reply's marker before it counts too). */
  answers(): Map<string, number>;
  /** Tags answered other than exactly once: missing (0) and repeated (2+). */
  notOnce(): { readonly missing: string[]; readonly repeated: string[] };
}

export function taggedChats(api: FakeBotApi, count: number, firstUserId = 5_000): TaggedChats {
  const chats = Array.from({ length: count }, (_, i) => {
    const user = api.addUser({ id: firstUserId + i, first_name: `User ${i}` });
    return { user, dm: api.addPrivateChat(user) };
  });
  const sent: string[] = [];
  const perChat = chats.map(() => 0);
  const answers = () => {
    const counts = new Map(sent.map((tag) => [tag, 0]));
    chats.forEach(({ dm }) => {
      for (const text of api.botTexts(dm.id)) {
        const tag = text?.split(/\s+/).at(-1);
        if (tag !== undefined && counts.has(tag)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
      }
    });
    return counts;
  };
  return {
    chats,
    sent,
    send(index) {
      const chat = chats[index];
      if (chat === undefined) throw new RangeError(`no chat ${index}`);
      const tag = `c${index}m${perChat[index]}`;
      perChat[index] = (perChat[index] ?? 0) + 1;
      sent.push(tag);
      api.from(chat.user).text(chat.dm.id, `say ${tag}`);
      return tag;
    },
    answers,
    notOnce() {
      const counts = [...answers()];
      return { missing: counts.filter(([, n]) => n === 0).map(([tag]) => tag), repeated: counts.filter(([, n]) => n > 1).map(([tag]) => tag) };
    },
  };
}
