import { afterEach, describe, expect, it } from "vitest";
import type { ReplyFrame } from "../../src/devgateway/devGateway.js";
import { startStack, until, userEvent, type Stack, type StackOptions } from "../helpers/stack.js";

// `[activity] enabled` end to end: a real dev gateway, the broker and the scripted agent's
// `tools3` scenario (three tool calls 700 ms apart, their arguments full of credentials), in each
// delivery mode. The edit cadence is pinned in virtual time in activityMessage.marble.test.ts.

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

interface Seen {
  readonly frame: ReplyFrame;
  readonly messageId: string;
}

async function start(delivery: Record<string, unknown>, options: StackOptions = {}): Promise<{ stack: Stack; seen: Seen[] }> {
  stack = await startStack({ ...options, config: { ...options.config, delivery, activity: { enabled: true }, reactions: { enabled: false } } });
  const seen: Seen[] = [];
  stack.gateway.received.subscribe((received) => {
    if (received.kind === "reply") seen.push({ frame: received.frame, messageId: received.messageId });
  });
  return { stack, seen };
}

const turnOver = (s: Stack) => until(() => s.records.some((r) => r.msg === "turn complete" || r.msg === "turn failed"), 30_000);

/** Every credential `tools3` puts in a tool argument. */
const SECRETS = ["hunter2pass", "s3cretpw", "deploy:", "tok_live_123", "sk-proj-abcdefghijklmnopqrstuvwx"];

/** The text path's own tool summary (`[reactions] tool_display = "full"`), as upstream heads a text reply. */
const SUMMARY = "✅ `Bash`\n✅ `Read`\n✅ `mcp__web__lookup`\n\n";

describe.each([
  ["text", { mode: "text" }, "tools3 text", [`${SUMMARY}all three checks passed`]],
  ["structured", { mode: "structured", bubble_delay_ms: 0 }, "tools3 envelope", ["found it", "all three checks passed"]],
  ["sequential", { mode: "sequential" }, "tools3 bubble", ["all three checks passed"]],
])("the tool-activity message end to end (%s mode)", (_mode, delivery, prompt, answer) => {
  it("one activity message, edited as the three tools start and finish, deleted after the answer; no secret in it", async () => {
    const { stack, seen } = await start(delivery);
    stack.gateway.broadcast(userEvent(prompt));
    expect(await turnOver(stack)).toBe(true);
    expect(await until(() => seen.some((s) => s.frame.command === "delete_message"), 5_000)).toBe(true);
    const posts = seen.filter((s) => s.frame.command === undefined);
    const [activity, ...replies] = posts;
    expect(activity?.frame.content.text).toMatch(/^🖥️ Running curl/);
    expect(replies.map((s) => s.frame.content.text)).toEqual(answer);
    const edits = seen.filter((s) => s.frame.command === "edit_message");
    // Open at the first start; the next changes (one finished, two more started) within 1.5 s make one edit.
    expect(edits.length).toBeGreaterThanOrEqual(1);
    for (const edit of edits) expect(edit.frame.reply_to).toBe(activity?.messageId);
    const last = edits.at(-1)?.frame.content.text ?? "";
    expect(last.split("\n")).toEqual([
      expect.stringMatching(/^🖥️ Running curl -u \[redacted\]/),
      "📖 Reading /home/agent/project/.env",
      expect.stringMatching(/^🔧 Lookup OPENAI_API_KEY=\[redacted\]/),
    ]);
    // Deleted once, after the answer's last message.
    const deletes = seen.filter((s) => s.frame.command === "delete_message");
    expect(deletes.map((s) => s.frame.reply_to)).toEqual([activity?.messageId]);
    expect(seen.indexOf(deletes[0] as Seen)).toBeGreaterThan(seen.indexOf(replies.at(-1) as Seen));
    for (const s of [activity, ...edits]) for (const secret of SECRETS) expect(s?.frame.content.text).not.toContain(secret);
  });
});

describe("the tool-activity message where the platform cannot delete", () => {
  it("is edited to a one-line summary instead", async () => {
    const hello = { schema: "openab.gateway.hello.v1", protocol_version: 1, capabilities: { telegram: { send_ack: true, can_edit: true, can_delete: false } } };
    const { stack, seen } = await start({ mode: "text" }, { gateway: { hello } });
    expect(await until(() => stack.records.some((r) => r.msg === "gateway capabilities negotiated"), 10_000)).toBe(true);
    stack.gateway.broadcast(userEvent("tools3 text 300"));
    expect(await turnOver(stack)).toBe(true);
    expect(await until(() => seen.some((s) => s.frame.content.text === "🔧 3 tool calls"), 5_000)).toBe(true);
    expect(seen.some((s) => s.frame.command === "delete_message")).toBe(false);
  });

  it("is not posted where the platform can neither edit nor delete", async () => {
    const hello = { schema: "openab.gateway.hello.v1", protocol_version: 1, capabilities: { telegram: { send_ack: true, can_edit: false, can_delete: false } } };
    const { stack, seen } = await start({ mode: "text" }, { gateway: { hello } });
    expect(await until(() => stack.records.some((r) => r.msg === "gateway capabilities negotiated"), 10_000)).toBe(true);
    stack.gateway.broadcast(userEvent("tools3 text 200"));
    expect(await turnOver(stack)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen.map((s) => s.frame.content.text)).toEqual([`${SUMMARY}all three checks passed`]);
  });

  it("never shows on a proactive turn", async () => {
    const { stack, seen } = await start({ mode: "text" });
    stack.gateway.broadcast(userEvent("tools3 text 200", { proactive: true }));
    expect(await turnOver(stack)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen.map((s) => s.frame.content.text)).toEqual([`${SUMMARY}all three checks passed`]);
  });
});
