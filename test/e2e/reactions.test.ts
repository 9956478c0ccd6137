import { afterEach, describe, expect, it } from "vitest";
import { DONE_FACES } from "../../operators/delivery/status/statusReactions.js";
import type { ReplyFrame } from "../../src/devgateway/devGateway.js";
import { startStack, until, userEvent, type Stack, type StackOptions } from "../helpers/stack.js";

// Status reactions end to end: a real dev gateway, the broker and the scripted agent. The exact
// timers are pinned in virtual time (test/operators/delivery/status/statusReactions.marble.test.ts);
// here a short debounce lets every state show over real sockets.

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

const timing = { debounce_ms: 100, stall_soft_ms: 60_000, stall_hard_ms: 120_000 };

async function start(options: StackOptions & { delivery?: Record<string, unknown>; reactions?: Record<string, unknown> } = {}): Promise<Stack> {
  const { delivery, reactions, ...rest } = options;
  stack = await startStack({
    ...rest,
    config: { ...rest.config, ...(delivery === undefined ? {} : { delivery }), reactions: { timing, ...reactions } },
  });
  return stack;
}

/** The adds and removes on one message, as `+👀` / `-👀`. */
function changes(commands: readonly ReplyFrame[], messageId: string): string[] {
  return commands
    .filter((frame) => frame.reply_to === messageId)
    .map((frame) => `${frame.command === "add_reaction" ? "+" : frame.command === "remove_reaction" ? "-" : "?"}${frame.content.text}`);
}

async function turnDone(stack: Stack, count = 1): Promise<void> {
  expect(await until(() => stack.records.filter((r) => r.msg === "turn complete" || r.msg === "turn failed").length >= count, 20_000)).toBe(true);
  // The done reaction and its face leave right after the turn settles.
  await new Promise((resolve) => setTimeout(resolve, 300));
}

describe("status reactions on the user's message", () => {
  it("a text turn with a tool call: 👀, 🤔, the tool's state, then 🆗 and a face — each change adds, then removes the old", async () => {
    const stack = await start();
    const event = userEvent("slowtool 400");
    stack.gateway.broadcast(event);
    await stack.replyCount(1);
    await turnDone(stack);
    // The text path's tool summary heads the answer, as upstream's does.
    expect(stack.replies.map((r) => r.content.text)).toEqual(["✅ `Read file`\n\nread it"]);
    const seen = changes(stack.commands, event.message_id as string);
    const face = seen.at(-1) ?? "";
    expect(DONE_FACES.map((f) => `+${f}`)).toContain(face);
    expect(seen.slice(0, -1)).toEqual(["+👀", "+🤔", "-👀", "+👨‍💻", "-🤔", "+🤔", "-👨‍💻", "+🆗", "-🤔"]);
    // Fire-and-forget, as upstream: no reaction asks for an ack.
    for (const frame of stack.commands) expect(frame.request_id).toBeUndefined();
  });

  it("a failing turn ends in 😱 after the ⚠️ message", async () => {
    const stack = await start();
    const event = userEvent("error");
    stack.gateway.broadcast(event);
    const [reply] = await stack.replyCount(1);
    expect(reply?.content.text).toMatch(/^⚠️/);
    await turnDone(stack);
    const seen = changes(stack.commands, event.message_id as string);
    expect(seen[0]).toBe("+👀");
    // The last change: 😱 added, then what it replaced removed.
    expect(seen.at(-2)).toBe("+😱");
    expect(seen.at(-1)).toMatch(/^-/);
  });

  it("[reactions] enabled = false sends no command frames", async () => {
    const stack = await start({ reactions: { enabled: false } });
    stack.gateway.broadcast(userEvent("slowtool 100"));
    await stack.replyCount(1);
    await turnDone(stack);
    expect(stack.commands).toEqual([]);
  });

  it("a gateway whose hello says supports_reactions: false gets none", async () => {
    const hello = {
      schema: "openab.gateway.hello.v1",
      protocol_version: 1,
      capabilities: { telegram: { send_ack: true, supports_reactions: false } },
    };
    const stack = await start({ gateway: { hello } });
    expect(await until(() => stack.records.some((r) => r.msg === "gateway capabilities negotiated"), 10_000)).toBe(true);
    stack.gateway.broadcast(userEvent("slowtool 100"));
    await stack.replyCount(1);
    await turnDone(stack);
    expect(stack.commands).toEqual([]);
  });

  it("a gateway that advertises supports_reactions gets them", async () => {
    const hello = {
      schema: "openab.gateway.hello.v1",
      protocol_version: 1,
      capabilities: { telegram: { send_ack: true, supports_reactions: true } },
    };
    const stack = await start({ gateway: { hello } });
    expect(await until(() => stack.records.some((r) => r.msg === "gateway capabilities negotiated"), 10_000)).toBe(true);
    const event = userEvent("text");
    stack.gateway.broadcast(event);
    await stack.replyCount(1);
    await turnDone(stack);
    expect(changes(stack.commands, event.message_id as string).slice(0, 1)).toEqual(["+👀"]);
    expect(changes(stack.commands, event.message_id as string)).toContain("+🆗");
  });

  it("remove_after_reply clears the done reaction after done_hold_ms", async () => {
    const stack = await start({ reactions: { remove_after_reply: true, timing: { ...timing, done_hold_ms: 200 } } });
    const event = userEvent("text");
    stack.gateway.broadcast(event);
    await stack.replyCount(1);
    await turnDone(stack);
    expect(await until(() => changes(stack.commands, event.message_id as string).includes("-🆗"), 5_000)).toBe(true);
  });

  it("a turn cancelled with /cancel still ends in 🆗; the /cancel message itself gets none", async () => {
    const stack = await start();
    const turn = userEvent("slow 5000");
    stack.gateway.broadcast(turn);
    expect(await until(() => changes(stack.commands, turn.message_id as string).includes("+👀"), 10_000)).toBe(true);
    const cancel = userEvent("/cancel");
    stack.gateway.broadcast(cancel);
    // Two turns end: the /cancel reply's and the cancelled one.
    await turnDone(stack, 2);
    expect(changes(stack.commands, turn.message_id as string)).toContain("+🆗");
    expect(changes(stack.commands, cancel.message_id as string)).toEqual([]);
  });

  it("a proactive event triage admits gets reactions; one it suppresses gets none", async () => {
    // Quiet hours from an hour ago to an hour from now: every proactive event is suppressed.
    const clock = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString().slice(11, 16);
    const quiet = await start({ config: { triage: { enabled: true, quiet_hours: `${clock(-60)}-${clock(60)}`, timezone: "UTC" } } });
    const suppressed = userEvent("text", { proactive: true });
    quiet.gateway.broadcast(suppressed);
    expect(await until(() => quiet.records.some((r) => r.msg === "proactive event suppressed by triage"), 10_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(quiet.commands).toEqual([]);
    await quiet.stop();
    stack = undefined;

    const open = await start({ config: { triage: { enabled: true, timezone: "UTC" } } });
    const admitted = userEvent("text", { proactive: true });
    open.gateway.broadcast(admitted);
    await open.replyCount(1);
    await turnDone(open);
    expect(changes(open.commands, admitted.message_id as string)).toContain("+🆗");
  });

  it.each([
    ["structured", "envelope", 3],
    ["sequential", "sequential", 3],
  ] as const)("the same in %s mode", async (mode, scenario, messages) => {
    const stack = await start({ delivery: { mode, bubble_delay_ms: 50 } });
    const event = userEvent(scenario);
    stack.gateway.broadcast(event);
    await stack.replyCount(messages);
    await turnDone(stack);
    const seen = changes(stack.commands, event.message_id as string);
    expect(seen[0]).toBe("+👀");
    expect(seen).toContain("+🆗");
    expect(seen.filter((change) => change.startsWith("+")).at(-2)).toBe("+🆗");
  });
});
