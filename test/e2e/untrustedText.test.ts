import { afterEach, describe, expect, it } from "vitest";
import type { LogRecord } from "../helpers/logCapture.js";
import { startStack, until, userEvent, type Stack } from "../helpers/stack.js";
import { CONTROL_CHARS, expectRecordsBoundedClean } from "../helpers/untrusted.js";

// Issue 17, hole 5, end to end: a real gateway socket, a real agent process. Whatever either side
// writes into an error, a title, a method name or an id reaches the user and the log bounded and
// without control characters or escapes; the agent's reply itself is content and passes as written.

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

/** The same text the scripted agent's hostile scenarios repeat. */
const HOSTILE = "\u001b[31mboom\u001b[0m\u0000\r\n\u001b]0;pwned\u0007\u202eevil ".repeat(16_000);

describe("untrusted text end to end", () => {
  it("a 1 MB JSON-RPC error full of escapes reaches the user as a bounded, clean ⚠️ line; logs stay small", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("hugeerror"));
    const [reply] = await stack.replyCount(1);
    const text = reply?.content.text ?? "";
    expect(text.startsWith("⚠️ JSON-RPC error -32000: agent failure boom")).toBe(true);
    expect(text).toMatch(/…\(\+[\d,]+ chars\) — upstream boom/);
    expect(text.length).toBeLessThanOrEqual(1_100);
    expect(CONTROL_CHARS.test(text) || text.includes("\r")).toBe(false);
    await until(() => stack?.records.some((r) => r.msg === "turn complete" || r.msg === "turn failed") === true, 10_000);
    const longest = expectRecordsBoundedClean(stack.records, 8_192);
    console.info(`hugeerror: user sees ${text.length} chars; longest log line ${longest} chars over ${stack.records.length} lines`);
  });

  it("hostile tool titles, permission titles, method names, session ids and stderr are bounded and clean; the reply passes", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("hostiletools"));
    const [reply] = await stack.replyCount(1);
    const text = reply?.content.text ?? "";
    const [summary] = text.split("\n");
    expect(summary?.startsWith("✅ `Read file boom")).toBe(true);
    expect(summary).toMatch(/…\(\+[\d,]+ chars\)`$/);
    expect(summary?.length).toBeLessThanOrEqual(520);
    expect(text.endsWith("\n\ndone with hostile tools")).toBe(true);
    expect(CONTROL_CHARS.test(text)).toBe(false);
    await until(() => stack?.records.some((r) => r.msg === "agent stderr" && String(r.line).startsWith("[scripted-agent] stderr")) === true, 10_000);
    await until(() => stack?.records.some((r) => r.msg === "turn complete") === true, 10_000);
    for (const msg of ["auto-respond permission", "agent request refused", "session update outside a turn", "agent stderr"]) {
      expect(stack.records.some((r) => r.msg === msg), msg).toBe(true);
    }
    const longest = expectRecordsBoundedClean(stack.records, 4_096);
    console.info(`hostiletools: longest log line ${longest} chars over ${stack.records.length} lines`);
  });

  it("an agent's envelope with a hostile schema name or tool name is logged bounded and clean (structured mode)", async () => {
    stack = await startStack({ config: { delivery: { mode: "structured" } } });
    const name = `\u001b[31m${"x".repeat(50_000)}\u0000`;
    // The scripted agent echoes the prompt: the user's text is the agent's output.
    stack.gateway.broadcast(userEvent(JSON.stringify({ schema: "openab.turn.v1", messages: [{ id: "b1", text: "checking" }], next: { type: "tool", name, arguments: {} } })));
    stack.gateway.broadcast(userEvent(JSON.stringify({ schema: `openab.turn.${name}`, messages: [{ id: "b1", text: "hi" }], next: { type: "stop" } })));
    await until(() => stack?.records.filter((r) => r.msg === "turn complete").length === 2, 15_000);
    const proposal = stack.records.find((r) => r.msg.startsWith("structured turn proposed a tool call")) as LogRecord & { tool: string };
    expect(proposal.tool).toMatch(/^x+…\(\+[\d,]+ chars\)$/);
    const parseFailure = stack.records.find((r) => r.msg === "structured turn did not parse") as LogRecord & { error: string };
    expect(parseFailure.error).toMatch(/^unexpected schema `openab\.turn\.x+…\(\+[\d,]+ chars\)`$/);
    const longest = expectRecordsBoundedClean(stack.records, 4_096);
    console.info(`envelope names: longest log line ${longest} chars`);
  });

  it("a 1 MB gateway rejection of the reply fails the turn with a bounded, clean error in the log", async () => {
    stack = await startStack({
      gateway: {
        hello: { capabilities: { telegram: { send_ack: true } } },
        ack: () => ({ success: false, outcome: "rejected", error_code: "chat_gone", error: HOSTILE }),
      },
    });
    await until(() => stack?.records.some((r) => r.msg === "gateway capabilities negotiated") === true, 10_000);
    stack.gateway.broadcast(userEvent("prose"));
    await until(() => stack?.records.some((r) => r.msg === "turn failed") === true, 15_000);
    const failed = stack.records.find((r) => r.msg === "turn failed") as LogRecord & { err: { message: string; code: string } };
    expect(failed.err.code).toBe("chat_gone");
    expect(failed.err.message.length).toBeLessThanOrEqual(600);
    const longest = expectRecordsBoundedClean(stack.records, 4_096);
    console.info(`gateway rejection: err.message ${failed.err.message.length} chars; longest log line ${longest} chars`);
  });
});
