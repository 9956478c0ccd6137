import { describe, expect, it } from "vitest";
import { refusal, someConversations, useFakeSlack } from "./slackFixture.js";

describe("fake Slack: assistant.threads (OpenAB's assistant_mode)", () => {
  const slack = useFakeSlack();

  it("setStatus keeps each status per thread ('' clears); loading_messages are 1–10 strings of 1–50 characters", async () => {
    const { fake, web } = slack;
    const { dm, alice } = someConversations(fake);
    const question = fake.from(alice).message(dm.id, "help");
    await web.assistant.threads.setStatus({ channel_id: dm.id, thread_ts: question.ts, status: "Thinking…" });
    await web.assistant.threads.setStatus({ channel_id: dm.id, thread_ts: question.ts, status: "Using search…", loading_messages: ["Reading", "Writing"] });
    await web.assistant.threads.setStatus({ channel_id: dm.id, thread_ts: question.ts, status: "" });
    expect(fake.assistantThread(dm.id, question.ts)?.statuses).toEqual(["Thinking…", "Using search…", ""]);
    expect(await refusal(web.assistant.threads.setStatus({ channel_id: dm.id, thread_ts: question.ts, status: "x", loading_messages: ["y".repeat(51)] }))).toBe("invalid_arguments");
    expect(await refusal(web.assistant.threads.setStatus({ channel_id: dm.id, thread_ts: question.ts } as never))).toBe("invalid_arguments");
  });

  it("refuses an unknown channel (channel_not_found) and a thread_ts that is no thread's parent there (invalid_thread_ts)", async () => {
    const { fake, web } = slack;
    const { dm, general, alice } = someConversations(fake);
    const question = fake.from(alice).message(dm.id, "help");
    const reply = await web.chat.postMessage({ channel: dm.id, thread_ts: question.ts, text: "on it" });
    expect(await refusal(web.assistant.threads.setStatus({ channel_id: "D0NOPE", thread_ts: question.ts, status: "x" }))).toBe("channel_not_found");
    expect(await refusal(web.assistant.threads.setStatus({ channel_id: general.id, thread_ts: question.ts, status: "x" }))).toBe("invalid_thread_ts");
    expect(await refusal(web.assistant.threads.setStatus({ channel_id: dm.id, thread_ts: reply.ts!, status: "x" }))).toBe("invalid_thread_ts");
  });

  it("setSuggestedPrompts takes 1–4 prompts with a title and a message", async () => {
    const { fake, web } = slack;
    const { dm, alice } = someConversations(fake);
    const question = fake.from(alice).message(dm.id, "hi");
    const prompts = [{ title: "Summarise", message: "Summarise this thread" }];
    await web.assistant.threads.setSuggestedPrompts({ channel_id: dm.id, thread_ts: question.ts, title: "Try", prompts: prompts as never });
    expect(fake.assistantThread(dm.id, question.ts)?.prompts).toEqual({ title: "Try", prompts });
    const five = Array.from({ length: 5 }, (_, index) => ({ title: `t${index}`, message: "m" }));
    expect(await refusal(web.assistant.threads.setSuggestedPrompts({ channel_id: dm.id, thread_ts: question.ts, prompts: five as never }))).toBe("invalid_arguments");
    expect(await refusal(web.assistant.threads.setSuggestedPrompts({ channel_id: dm.id, thread_ts: question.ts, prompts: [{ title: "no message" }] as never }))).toBe("invalid_arguments");
  });
});
