import { afterEach, describe, expect, it } from "vitest";
import type { InlineKeyboardButton } from "grammy/types";
import type { ShownMessage } from "../fakes/telegram/index.js";
import { someChats, until, useFakeBotApi } from "../fakes/telegram/fakeBotApiFixture.js";
import { startTelegramStack, type TelegramStack } from "../helpers/telegramStack.js";

// Issue 41's Telegram acceptance, end to end: a broker whose only platform is [telegram], long
// polling the fake Bot API, with `permission_mode = "ask"` and the scripted agent's `permission
// <kinds>` scenario (a real child process that sends session/request_permission and replies with
// the answer it got, as JSON). The question is a message with an inline keyboard; a callback_query
// from the requester answers it, every tap is answered with answerCallbackQuery, and the keyboard
// is gone once answered. The gateway protocol's numbered questions: permissionAsk.test.ts.

const fake = useFakeBotApi();
let stack: TelegramStack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

const ask = "permission allow_once,reject_once";
const answered = (optionId: string) => JSON.stringify({ outcome: { outcome: "selected", optionId } });
const promptsRun = (s: TelegramStack) => s.agentEvents().filter((line) => line.startsWith("prompt "));
const responses = (s: TelegramStack) => s.agentEvents().filter((line) => line.startsWith("permission-response "));

/** The bot's message that carries (or carried) the question: the one whose text asks to go ahead. */
function questionIn(chatId: number, thread?: number): ShownMessage | undefined {
  return fake.api.shown(chatId, thread === undefined ? {} : { thread }).find((message) => message.from_bot && message.text?.includes("The agent asks to go ahead") === true);
}

/** The callback_data of the question's button labelled `label`. */
function dataOf(question: ShownMessage, label: string): string {
  const button = question.keyboard.flat().find((one) => one.text === label) as (InlineKeyboardButton & { callback_data?: string }) | undefined;
  if (button?.callback_data === undefined) throw new Error(`no button ${label} on the question`);
  return button.callback_data;
}

async function startAsking(): Promise<TelegramStack> {
  stack = await startTelegramStack(fake.api, { config: { agent: { permission_mode: "ask" } } });
  return stack;
}

describe('permission_mode = "ask" on Telegram (fake Bot API, real agent process)', () => {
  it("a forum topic: the options are inline buttons; another member's tap gets a notice and changes nothing; the requester's tap answers, and the keyboard goes", async () => {
    const { alice, forum, topic } = someChats(fake.api);
    const bob = fake.api.addUser({ id: 1002, first_name: "Bob", username: "bob_tg" });
    const s = await startAsking();
    // A topic needs no @mention, so the scenario's arguments stay as the agent reads them.
    fake.api.from(alice).text(forum.id, ask, { threadId: topic.message_thread_id });
    await until(() => (questionIn(forum.id)?.keyboard.length ?? 0) > 0, 20_000);
    const question = questionIn(forum.id, topic.message_thread_id)!;
    expect(question.text).toContain("Edit file");
    expect(question.text).toContain("Tap an option. Only Alice can answer.");
    // One row, a callback button per option, labelled with the option's name.
    expect(question.keyboard).toHaveLength(1);
    expect(question.keyboard[0]!.map((button) => button.text)).toEqual(["allow_once", "reject_once"]);
    expect(question.keyboard[0]!.every((button) => "callback_data" in button)).toBe(true);

    // Bob, in the same topic, taps "allow_once": only he sees a notice; the agent is still waiting.
    const bobsTap = fake.api.from(bob).press(forum.id, question.message_id, dataOf(question, "allow_once")).callback_query!.id;
    await until(() => fake.api.callbackAnswers.has(bobsTap), 20_000);
    expect(fake.api.callbackAnswers.get(bobsTap)).toEqual({ text: "Only Alice can answer this.", show_alert: false });
    expect(s.records.find((r) => r.msg === "question answer ignored")).toMatchObject({ reason: "not_an_answerer", tap: true, sender: String(bob.id) });
    expect(responses(s)).toEqual([]);
    expect(questionIn(forum.id)!.keyboard[0]!.map((button) => button.text)).toEqual(["allow_once", "reject_once"]);

    // Alice taps "reject_once": her tap is answered without a notice, the agent gets that option.
    const alicesTap = fake.api.from(alice).press(forum.id, question.message_id, dataOf(question, "reject_once")).callback_query!.id;
    await until(() => fake.api.botTexts(forum.id, { thread: topic.message_thread_id }).includes(answered("opt-reject_once")), 20_000);
    expect(fake.api.callbackAnswers.get(alicesTap)).toEqual({ text: undefined, show_alert: false });
    expect(responses(s)).toEqual([`permission-response ${answered("opt-reject_once")}`]);
    // The question now says what was chosen and by whom, and shows no buttons.
    await until(() => questionIn(forum.id)!.keyboard.length === 0, 20_000);
    const closed = questionIn(forum.id, topic.message_thread_id)!;
    expect(closed.message_id).toBe(question.message_id);
    expect(closed.text).toContain("→ reject_once (Alice)");
    expect(closed.text).not.toContain("Tap an option");
    expect(() => fake.api.from(alice).press(forum.id, question.message_id, dataOf(question, "allow_once"))).toThrow(/no button/);
    // Each tap was answered once, the requester's before the question was edited (the spinner stops first).
    const calls = fake.api.calls;
    const answers = calls.filter((call) => call.method === "answerCallbackQuery");
    expect(answers.map((call) => [call.params.callback_query_id, call.ok])).toEqual([
      [bobsTap, true],
      [alicesTap, true],
    ]);
    const firstEdit = calls.findIndex((call) => call.method === "editMessageText" && call.params.message_id === question.message_id);
    expect(calls.indexOf(answers[1]!)).toBeLessThan(firstEdit);
    // The taps started no turn: one prompt, the question's.
    expect(promptsRun(s)).toHaveLength(1);
    expect(s.records.find((r) => r.msg === "permission answered in the chat")).toMatchObject({ how: "answered" });
  });

  it("a tap on a question no longer open (its buttons left by a failed edit) is answered with a notice and ignored", async () => {
    const { alice, forum, topic } = someChats(fake.api);
    const s = await startAsking();
    fake.api.from(alice).text(forum.id, ask, { threadId: topic.message_thread_id });
    await until(() => (questionIn(forum.id)?.keyboard.length ?? 0) > 0, 20_000);
    const question = questionIn(forum.id)!;
    // The edit that would take the buttons away is refused, so they stay under the answered question.
    fake.api.failNext("editMessageText", { error_code: 400, description: "Bad Request: message can't be edited" }, 5);
    fake.api.from(alice).press(forum.id, question.message_id, dataOf(question, "allow_once"));
    await until(() => fake.api.botTexts(forum.id).includes(answered("opt-allow_once")), 20_000);
    await until(() => s.records.some((r) => r.msg === "question message not updated"), 20_000);
    expect(questionIn(forum.id)!.keyboard[0]!.map((button) => button.text)).toEqual(["allow_once", "reject_once"]);

    const late = fake.api.from(alice).press(forum.id, question.message_id, dataOf(question, "reject_once")).callback_query!.id;
    await until(() => fake.api.callbackAnswers.has(late), 20_000);
    expect(fake.api.callbackAnswers.get(late)).toEqual({ text: "This question is no longer open.", show_alert: false });
    expect(s.records.find((r) => r.msg === "question answer ignored")).toMatchObject({ reason: "not_open", tap: true });
    expect(responses(s)).toEqual([`permission-response ${answered("opt-allow_once")}`]);
    expect(promptsRun(s)).toHaveLength(1);
  });

  it("a DM: the requester's typed number answers too, and the buttons go", async () => {
    const { alice, dm } = someChats(fake.api);
    const s = await startAsking();
    fake.api.from(alice).text(dm.id, ask);
    await until(() => (questionIn(dm.id)?.keyboard.length ?? 0) > 0, 20_000);
    const question = questionIn(dm.id)!;
    expect(question.keyboard[0]!.map((button) => button.text)).toEqual(["allow_once", "reject_once"]);

    fake.api.from(alice).text(dm.id, "1");
    await until(() => fake.api.botTexts(dm.id).includes(answered("opt-allow_once")), 20_000);
    expect(responses(s)).toEqual([`permission-response ${answered("opt-allow_once")}`]);
    await until(() => questionIn(dm.id)!.keyboard.length === 0, 20_000);
    expect(questionIn(dm.id)!.text).toContain("→ allow_once (Alice)");
    // The "1" started no turn of its own, and no tap was answered (there was none).
    expect(promptsRun(s)).toHaveLength(1);
    expect(s.prompts().flat().some((text) => text.trim() === "1")).toBe(false);
    expect(fake.api.callsOf("answerCallbackQuery")).toEqual([]);
  });
});
