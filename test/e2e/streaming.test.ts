import { afterEach, describe, expect, it } from "vitest";
import type { ReplyFrame } from "../../src/devgateway/devGateway.js";
import { startStack, until, userEvent, type Stack, type StackOptions } from "../helpers/stack.js";

// `[gateway] streaming = true` end to end: a real dev gateway, the broker and the scripted agent's
// `drip` scenario, which writes its reply over a few seconds. The 1.5 s cadence is pinned exactly
// in virtual time (test/operators/delivery/status/streamingEdits.marble.test.ts); here the bounds are generous.

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

/** Every frame the gateway received, with when (ms) and the id it gave a posted message. */
interface Seen {
  readonly at: number;
  readonly frame: ReplyFrame;
  readonly messageId: string;
}

async function start(options: StackOptions = {}): Promise<{ stack: Stack; seen: Seen[] }> {
  stack = await startStack({ ...options, config: { ...options.config, gateway: { streaming: true, ...options.config?.gateway }, reactions: { enabled: false } } });
  const seen: Seen[] = [];
  stack.gateway.received.subscribe((received) => {
    if (received.kind === "reply") seen.push({ at: Date.now(), frame: received.frame, messageId: received.messageId });
  });
  return { stack, seen };
}

const turnOver = (s: Stack) => until(() => s.records.some((r) => r.msg === "turn complete" || r.msg === "turn failed"), 30_000);
const edits = (seen: readonly Seen[]) => seen.filter((s) => s.frame.command === "edit_message");
const posts = (seen: readonly Seen[]) => seen.filter((s) => s.frame.command === undefined);

const negotiated = (platform: Record<string, unknown>) => ({
  hello: { schema: "openab.gateway.hello.v1", protocol_version: 1, capabilities: { telegram: { send_ack: true, ...platform } } },
});

describe("streaming edits end to end (text mode)", () => {
  it("one placeholder, then edits of it with growing text at most every 1.5 s, then the final text", async () => {
    const { stack, seen } = await start();
    stack.gateway.broadcast(userEvent("drip 8 500"));
    expect(await turnOver(stack)).toBe(true);
    // Edits without edit_ack are written, not acked: the last may land just after the turn settled.
    const whole = "word1 word2 word3 word4 word5 word6 word7 word8";
    expect(await until(() => edits(seen).at(-1)?.frame.content.text === whole, 5_000)).toBe(true);
    const [placeholder, ...more] = posts(seen);
    expect(placeholder?.frame.content.text).toBe("…");
    expect(more).toEqual([]);
    const changes = edits(seen);
    expect(changes.length).toBeGreaterThanOrEqual(3);
    for (const change of changes) expect(change.frame.reply_to).toBe(placeholder?.messageId);
    const texts = changes.map((change) => change.frame.content.text);
    // Each shows more of the reply than the one before; the last is the whole reply.
    for (let i = 1; i < texts.length; i++) expect(texts[i]?.startsWith((texts[i - 1] ?? "").trimEnd())).toBe(true);
    expect(texts.at(-1)).toBe(whole);
    // Edits while the turn streams (all but the final one) are spaced by the 1.5 s loop; real sockets jitter a little.
    const streamed = changes.slice(0, -1);
    for (let i = 1; i < streamed.length; i++) expect((streamed[i]?.at ?? 0) - (streamed[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(1_200);
  });

  it("a 9,000-character streamed reply ends as the edited placeholder plus two more messages", async () => {
    const { stack, seen } = await start();
    stack.gateway.broadcast(userEvent("drip 6 400 1500"));
    expect(await turnOver(stack)).toBe(true);
    expect(await until(() => posts(seen).length === 3, 5_000)).toBe(true);
    const [placeholder, ...rest] = posts(seen);
    expect(placeholder?.frame.content.text).toBe("…");
    expect(rest).toHaveLength(2);
    const last = edits(seen).at(-1);
    expect(last?.frame.reply_to).toBe(placeholder?.messageId);
    const whole = [last, ...rest].map((s) => s?.frame.content.text ?? "");
    for (const part of whole) expect([...part].length).toBeLessThanOrEqual(4096);
    // Split at whitespace: the parts are the whole reply, nothing lost or repeated.
    const reply = Array.from({ length: 6 }, () => wordsOf(1500)).join("");
    expect(whole.join("").replace(/\s+/g, "")).toBe(reply.replace(/\s+/g, ""));
    // While over the limit, the streaming message showed "…" and the reply's tail.
    expect(edits(seen).slice(0, -1).some((s) => s.frame.content.text.startsWith("…") && [...s.frame.content.text].length === 1 + 3996)).toBe(true);
  });

  it("a gateway that fails edits still gets the full final reply, as new messages", async () => {
    const { stack, seen } = await start({
      gateway: {
        ...negotiated({ edit_ack: true, delete_ack: true, can_edit: true, can_delete: true, streaming_mode: "edit", show_streaming_placeholder: true }),
        ack: (frame) => (frame.command === "edit_message" ? { success: false, outcome: "rejected", error_code: "edit_refused", error: "cannot edit" } : {}),
      },
    });
    expect(await until(() => stack.records.some((r) => r.msg === "gateway capabilities negotiated"), 10_000)).toBe(true);
    stack.gateway.broadcast(userEvent("drip 4 500"));
    expect(await turnOver(stack)).toBe(true);
    const [placeholder, ...rest] = posts(seen);
    expect(placeholder?.frame.content.text).toBe("…");
    expect(rest.map((s) => s.frame.content.text)).toEqual(["word1 word2 word3 word4"]);
    // The stale placeholder is deleted, best effort.
    expect(seen.filter((s) => s.frame.command === "delete_message").map((s) => s.frame.reply_to)).toEqual([placeholder?.messageId]);
    expect(stack.records.find((r) => r.msg === "streaming edit failed; the final reply will be sent as new messages")).toMatchObject({ reason: "stream_edit_failed" });
  });

  it("a hello without can_edit gets one plain message and no edits", async () => {
    const { stack, seen } = await start({ gateway: negotiated({ streaming_mode: "edit", can_edit: false }) });
    expect(await until(() => stack.records.some((r) => r.msg === "gateway capabilities negotiated"), 10_000)).toBe(true);
    stack.gateway.broadcast(userEvent("drip 3 300"));
    expect(await turnOver(stack)).toBe(true);
    expect(posts(seen).map((s) => s.frame.content.text)).toEqual(["word1 word2 word3"]);
    expect(edits(seen)).toEqual([]);
    expect(stack.records.find((r) => r.msg === "platform does not stream edits; replies are sent once")).toMatchObject({ reason: "streaming_unsupported", platform: "telegram" });
  });

  it("a negotiated platform that streams opens with the first text when it shows no placeholder", async () => {
    const { stack, seen } = await start({ gateway: negotiated({ edit_ack: true, can_edit: true, streaming_mode: "edit" }) });
    expect(await until(() => stack.records.some((r) => r.msg === "gateway capabilities negotiated"), 10_000)).toBe(true);
    stack.gateway.broadcast(userEvent("drip 6 500"));
    expect(await turnOver(stack)).toBe(true);
    expect(await until(() => edits(seen).at(-1)?.frame.content.text === "word1 word2 word3 word4 word5 word6", 5_000)).toBe(true);
    const [first, ...rest] = posts(seen);
    expect(first?.frame.content.text).not.toBe("…");
    expect(first?.frame.content.text.startsWith("word1")).toBe(true);
    expect(rest).toEqual([]);
    expect(edits(seen).at(-1)?.frame.content.text).toBe("word1 word2 word3 word4 word5 word6");
  });
});

/** The scripted agent's `words(n)`: `word1 word2 …` cut to n characters. */
function wordsOf(n: number): string {
  let text = "";
  for (let i = 1; text.length < n; i++) text += `word${i} `;
  return text.slice(0, n);
}
