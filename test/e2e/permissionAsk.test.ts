import { afterEach, describe, expect, it } from "vitest";
import { startStack, userEvent, type Stack } from "../helpers/stack.js";

// Issue 41: `permission_mode = "ask"` over the gateway protocol, with a real scripted agent process
// that sends `session/request_permission` with the option kinds named in the message and replies
// with the answer it got. The gateway has no buttons: the question is a numbered list, answered by
// the next message in the conversation.
let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

const ask = "permission allow_once,reject_once";
const other = { sender: { id: "user-2", name: "bob", display_name: "Bob", is_bot: false } };

// A gateway whose hello says it acks sends and edits: the question's message is edited once answered.
const negotiated = { hello: { capabilities: { telegram: { send_ack: true, edit_ack: true, can_edit: true } } } };

async function asked(config: Record<string, unknown> = {}, gateway: Record<string, unknown> = negotiated): Promise<Stack> {
  stack = await startStack({ config: { agent: { permission_mode: "ask", ...config } }, gateway });
  stack.gateway.broadcast(userEvent(ask));
  const [question] = await stack.replyCount(1);
  expect(question?.content.text).toContain("1. allow_once");
  expect(question?.content.text).toContain("2. reject_once");
  expect(question?.content.text).toContain("Only Ann can answer.");
  return stack;
}

function prompts(s: Stack): string[] {
  return s.agentEvents().filter((line) => line.startsWith("prompt"));
}

describe('permission_mode = "ask" over the gateway protocol (real socket, real agent process)', () => {
  it("a number from the requester selects that option; the answer starts no turn", async () => {
    const s = await asked();
    s.gateway.broadcast(userEvent("2"));
    const replies = await s.replyCount(2);
    expect(JSON.parse(replies[1]?.content.text ?? "")).toEqual({ outcome: { outcome: "selected", optionId: "opt-reject_once" } });
    expect(s.agentEvents()).toContain(`permission-response ${JSON.stringify({ outcome: { outcome: "selected", optionId: "opt-reject_once" } })}`);
    expect(prompts(s)).toHaveLength(1);
    expect(s.records.find((r) => r.msg === "permission answered in the chat")).toMatchObject({ how: "answered" });
    // The question's message now says what was chosen, and by whom.
    const edit = s.commands.find((c) => c.command === "edit_message");
    expect(edit?.content.text).toContain("→ reject_once (Ann)");
  });

  it("a gateway without a hello cannot be asked to edit: what was chosen is said in a message of its own", async () => {
    const s = await asked({}, {});
    s.gateway.broadcast(userEvent("1"));
    const replies = await s.replyCount(3);
    expect(replies.map((r) => r.content.text)).toContain("→ allow_once (Ann)");
    expect(replies.map((r) => r.content.text)).toContain(JSON.stringify({ outcome: { outcome: "selected", optionId: "opt-allow_once" } }));
  });

  it("an option's name answers too", async () => {
    const s = await asked();
    s.gateway.broadcast(userEvent("Allow_Once"));
    const replies = await s.replyCount(2);
    expect(JSON.parse(replies[1]?.content.text ?? "")).toEqual({ outcome: { outcome: "selected", optionId: "opt-allow_once" } });
  });

  it("someone else's answer is ignored; the requester's still counts", async () => {
    const s = await asked();
    s.gateway.broadcast(userEvent("1", other));
    await until(() => s.records.some((r) => r.msg === "question answer ignored" && r.reason === "not_an_answerer"));
    expect(s.agentEvents().some((line) => line.startsWith("permission-response"))).toBe(false);
    s.gateway.broadcast(userEvent("2"));
    const replies = await s.replyCount(2);
    expect(JSON.parse(replies[1]?.content.text ?? "")).toEqual({ outcome: { outcome: "selected", optionId: "opt-reject_once" } });
    expect(prompts(s)).toHaveLength(1);
  });

  it("no answer in time: the fallback answers and the conversation is told", async () => {
    const s = await asked({ permission_timeout_secs: 1, permission_fallback: "allow_once" });
    const replies = await s.replyCount(3, 20_000);
    const texts = replies.map((r) => r.content.text);
    expect(texts).toContain("⏱️ No answer in time: allow_once.");
    expect(texts.some((t) => t === JSON.stringify({ outcome: { outcome: "selected", optionId: "opt-allow_once" } }))).toBe(true);
    expect(s.records.find((r) => r.msg === "permission answered in the chat")).toMatchObject({ how: "timeout" });
  });

  it("the default fallback rejects", async () => {
    const s = await asked({ permission_timeout_secs: 1 });
    const replies = await s.replyCount(3, 20_000);
    expect(replies.map((r) => r.content.text)).toContain(JSON.stringify({ outcome: { outcome: "selected", optionId: "opt-reject_once" } }));
  });

  it("/cancel cancels the question and the turn", async () => {
    const s = await asked();
    s.gateway.broadcast(userEvent("/cancel"));
    await until(() => s.agentEvents().some((line) => line.startsWith("permission-response")));
    expect(s.agentEvents()).toContain(`permission-response ${JSON.stringify({ outcome: { outcome: "cancelled" } })}`);
    await until(() => s.commands.some((c) => c.command === "edit_message" && c.content.text.includes("✖️ Cancelled.")));
    expect(prompts(s)).toHaveLength(1);
  });
});

async function until(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
