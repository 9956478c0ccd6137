import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { InlineKeyboardButton } from "grammy/types";
import { describe, expect, it } from "vitest";
import type { AgentConfig } from "../../src/config/index.js";
import type { ShownMessage } from "../fakes/telegram/index.js";
import { someChats, useFakeBotApi } from "../fakes/telegram/fakeBotApiFixture.js";
import { codexAcpAvailable, codexAgentConfig, useCodexRun, type CodexAgent } from "../helpers/codexAcp.js";
import { callsTool, type FakeResponsesApi, type ResponsesRequest, type ScriptStep } from "../helpers/fakeResponsesApi.js";
import type { LogRecord } from "../helpers/logCapture.js";
import { startStack, until, userEvent, type Stack } from "../helpers/stack.js";
import { startTelegramStack, type TelegramStack } from "../helpers/telegramStack.js";

// Issue 41's codex-acp acceptance: the real codex-acp (pinned in devDependencies), run offline
// against a local fake Responses API, asks before it runs a command; with `permission_mode =
// "ask"` the question reaches the chat with codex's own option names, and the chat's answer
// decides whether the command runs: allowed, its output reaches the reply; rejected, it does not.
// Over the gateway protocol the question is a numbered list answered by a message; on Telegram
// (the suite's fake Bot API) it carries buttons answered by a tap.

// Skipped with a loud warning where codex-acp is not installed; a failure under CI=true.
const codexHere = codexAcpAvailable();
// Codex starts in well under 2 s here; every bound leaves room for a loaded CI machine.
const perTestMs = 120_000;
const waitMs = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What the model asks codex to run, and what only running it prints: the question shows the
 * former, never the latter. No Markdown markers in it: Telegram's adapter sends the question as
 * legacy Markdown, which would eat a pair of `*` (reported to the lead; not what this test is about).
 */
const command = "echo ts-ask-41-$((40+2))";
const printed = "ts-ask-41-42";
/** codex-acp's names for its exec approval's options (Approved and Abort). */
const allowName = "Yes, proceed";
const rejectName = "No, and tell Codex what to do differently";

/**
 * Codex asks before every command outside its allowlist of safe reads (`untrusted`); the sandbox
 * is off so that the host's sandbox support plays no part (a command the sandbox refuses makes
 * codex ask a second time, to run it unsandboxed). The command is the fake model's, an `echo`.
 */
function askingCodex(codex: CodexAgent, workingDir: string): AgentConfig {
  const config = codexAgentConfig(codex, workingDir, "ask");
  return { ...config, args: [...config.args, "-c", 'approval_policy="untrusted"', "-c", 'sandbox_mode="danger-full-access"'] };
}

/** The text of the `function_call_output` items a request sends back to the model. */
const toolOutputs = (request: ResponsesRequest): string[] =>
  request.body.input.flatMap((item) => (item.type === "function_call_output" ? [String(item.output)] : []));

/** The model's turn: run the command with the shell tool codex offers, then quote what the tool's result says it printed. */
function pushScript(fake: FakeResponsesApi): void {
  const quotesOutput: ScriptStep = (request) => {
    // exec_command's result is a few lines about the process, then "Output:" and what it printed.
    const outputs = toolOutputs(request).map((output) => output.split("\nOutput:\n").at(-1)!.trim());
    return { text: `The command printed: ${outputs.join(" / ")}` };
  };
  fake.push(callsTool("exec_command", { cmd: command, login: false }), quotesOutput);
}

/** Checks on the question common to both platforms; `options` are its options as shown, in order. */
function expectCodexQuestion(text: string, options: readonly string[]): void {
  expect(text).toContain("❓ Permission");
  expect(text).toContain("The agent asks to go ahead");
  expect(text).toContain(command);
  expect(text).not.toContain(printed);
  expect(options[0]).toBe(allowName);
  expect(options).toContain(rejectName);
}

/** The model was asked once and has heard nothing back: codex waits on the chat's answer before running anything. */
function expectWaiting(fake: FakeResponsesApi, records: readonly LogRecord[]): void {
  expect(fake.requests).toHaveLength(1);
  expect(records.filter((record) => record.msg === "permission asked in the chat")).toMatchObject([{ mode: "ask", options: expect.any(Number) as number }]);
  expect(records.some((record) => record.msg === "permission answered in the chat")).toBe(false);
}

/** codex got the option the chat chose, and only then did the command run (allowed) or not (rejected). */
function expectDecided(fake: FakeResponsesApi, records: readonly LogRecord[], optionId: "approved" | "abort"): void {
  expect(records.filter((record) => record.msg === "permission answered in the chat")).toMatchObject([{ how: "answered", outcome: { outcome: "selected", optionId } }]);
  const ran = fake.requests.flatMap(toolOutputs).some((output) => output.includes(printed));
  expect(ran).toBe(optionId === "approved");
  // One question: the answer did not make codex ask again, nor start a model turn of its own.
  expect(records.filter((record) => record.msg === "permission asked in the chat")).toHaveLength(1);
  expect(fake.requests).toHaveLength(optionId === "approved" ? 2 : 1);
}

/** Why codex did what it did, for a failure message. */
const agentStderr = (records: readonly LogRecord[]) => records.filter((record) => record.msg === "agent stderr").map((record) => record.line).join("\n");
/** The event id of the turn that asked (the answer's own event is handled, and logged, apart from it). */
const runOf = (records: readonly LogRecord[]) => String(records.find((record) => record.msg === "question asked")?.event_id);
const turnComplete = (records: readonly LogRecord[], eventId: string) => records.some((record) => record.msg === "turn complete" && record.event_id === eventId);

// A gateway whose hello says it acks sends and edits: the question's message is edited once answered.
const negotiated = { hello: { capabilities: { telegram: { send_ack: true, edit_ack: true, can_edit: true } } } };

describe.skipIf(!codexHere)("codex-acp asks to run a command; the chat answers (gateway protocol: a numbered question)", () => {
  const codexRun = useCodexRun<Stack>();

  /** A run in which codex asks; resolves with the stack, the run's event id and the number of each option. */
  async function asked(): Promise<{ s: Stack; runId: string; number: (name: string) => string }> {
    pushScript(codexRun.fake);
    const workingDir = join(codexRun.codex.home, "work");
    mkdirSync(workingDir);
    const s = await startStack({ config: { delivery: { mode: "text" }, agent: askingCodex(codexRun.codex, workingDir) }, gateway: negotiated });
    codexRun.hold(s);
    const run = userEvent("what does the check print?");
    s.gateway.broadcast(run);
    const [question] = await s.replyCount(1, waitMs).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${agentStderr(s.records)}`);
    });
    const text = question!.content.text;
    expect(question!.reply_to).toBe(run.event_id);
    // The options as numbered lines, 1 to n, with codex's names.
    const numbered = text.split("\n").flatMap((line) => {
      const match = /^(\d+)\. (.*)$/.exec(line);
      return match === null ? [] : [{ number: match[1]!, name: match[2]! }];
    });
    expect(numbered.map((option) => option.number)).toEqual(numbered.map((_, i) => String(i + 1)));
    expectCodexQuestion(text, numbered.map((option) => option.name));
    expect(text).toContain("Reply with a number or an option's name. Only Ann can answer.");
    expectWaiting(codexRun.fake, s.records);
    expect(runOf(s.records)).toBe(run.event_id);
    const number = (name: string) => numbered.find((option) => option.name === name)!.number;
    return { s, runId: String(run.event_id), number };
  }

  it("allowed: the requester's number runs the command, and its output reaches the reply", async () => {
    const { s, runId, number } = await asked();
    const answer = userEvent(number(allowName));
    s.gateway.broadcast(answer);

    const done = await until(() => turnComplete(s.records, runId), waitMs);
    expect(done, agentStderr(s.records)).toBe(true);
    await sleep(500);

    expectDecided(codexRun.fake, s.records, "approved");
    // The model's reply quoted what the command printed on this machine.
    const final = s.replies.at(-1)!;
    expect(final.reply_to).toBe(runId);
    expect(final.content.text).toContain(`The command printed: ${printed}`);
    // The question now says what was chosen, and by whom; nothing answered the answering message.
    expect(s.commands.find((command) => command.command === "edit_message")?.content.text).toContain(`→ ${allowName} (Ann)`);
    expect(s.replies.filter((reply) => reply.reply_to === answer.event_id)).toEqual([]);
  }, perTestMs);

  it("rejected: the requester's number stops it; the command never runs and no reply carries its output", async () => {
    const { s, runId, number } = await asked();
    s.gateway.broadcast(userEvent(number(rejectName)));

    const done = await until(() => turnComplete(s.records, runId), waitMs);
    expect(done, agentStderr(s.records)).toBe(true);
    await sleep(500);

    expectDecided(codexRun.fake, s.records, "abort");
    for (const reply of s.replies) expect(reply.content.text).not.toContain(printed);
    expect(s.commands.find((command) => command.command === "edit_message")?.content.text).toContain(`→ ${rejectName} (Ann)`);
  }, perTestMs);
});

describe.skipIf(!codexHere)("codex-acp asks to run a command; the chat answers (Telegram: buttons and a tap)", () => {
  const bot = useFakeBotApi();
  const codexRun = useCodexRun<TelegramStack>();

  /** The bot's message that carries (or carried) the question. */
  const questionIn = (chatId: number): ShownMessage | undefined =>
    bot.api.shown(chatId).find((message) => message.from_bot && message.text?.includes("The agent asks to go ahead") === true);

  /** The callback_data of the question's button labelled `label`. */
  function dataOf(question: ShownMessage, label: string): string {
    const button = question.keyboard.flat().find((one) => one.text === label) as (InlineKeyboardButton & { callback_data?: string }) | undefined;
    if (button?.callback_data === undefined) throw new Error(`no button ${label} on the question`);
    return button.callback_data;
  }

  /** A run in a DM in which codex asks; resolves with the stack, the chat and the question as first shown. */
  async function asked() {
    pushScript(codexRun.fake);
    const workingDir = join(codexRun.codex.home, "work");
    mkdirSync(workingDir);
    const chats = someChats(bot.api);
    const s = await startTelegramStack(bot.api, { config: { delivery: { mode: "text" }, agent: askingCodex(codexRun.codex, workingDir) } });
    codexRun.hold(s);
    bot.api.from(chats.alice).text(chats.dm.id, "what does the check print?");
    const shown = await until(() => (questionIn(chats.dm.id)?.keyboard.length ?? 0) > 0, waitMs);
    expect(shown, agentStderr(s.records)).toBe(true);
    const question = questionIn(chats.dm.id)!;
    // One row of buttons labelled with codex's option names.
    expect(question.keyboard).toHaveLength(1);
    expectCodexQuestion(question.text ?? "", question.keyboard[0]!.map((button) => button.text));
    expect(question.text).toContain("Tap an option. Only Alice can answer.");
    expectWaiting(codexRun.fake, s.records);
    return { s, ...chats, question };
  }

  /** The requester taps `label`; resolves once the run's turn is over and the tap was answered. */
  async function tap(s: TelegramStack, chats: ReturnType<typeof someChats>, question: ShownMessage, label: string) {
    const tapId = bot.api.from(chats.alice).press(chats.dm.id, question.message_id, dataOf(question, label)).callback_query!.id;
    const runId = runOf(s.records);
    const done = await until(() => turnComplete(s.records, runId) && bot.api.callbackAnswers.has(tapId), waitMs);
    expect(done, agentStderr(s.records)).toBe(true);
    // The keyboard goes once answered, and the question says what was chosen and by whom.
    expect(await until(() => questionIn(chats.dm.id)?.keyboard.length === 0, waitMs)).toBe(true);
    expect(questionIn(chats.dm.id)!.text).toContain(`→ ${label} (Alice)`);
    await sleep(500);
  }

  it("allowed: the requester's tap runs the command, and its output reaches the reply", async () => {
    const { s, question, ...chats } = await asked();
    await tap(s, chats, question, allowName);

    expectDecided(codexRun.fake, s.records, "approved");
    const texts = bot.api.botTexts(chats.dm.id);
    expect(texts.at(-1)).toContain(`The command printed: ${printed}`);
  }, perTestMs);

  it("rejected: the requester's tap stops it; the command never runs and no message carries its output", async () => {
    const { s, question, ...chats } = await asked();
    await tap(s, chats, question, rejectName);

    expectDecided(codexRun.fake, s.records, "abort");
    for (const text of bot.api.botTexts(chats.dm.id)) expect(text ?? "").not.toContain(printed);
  }, perTestMs);
});
