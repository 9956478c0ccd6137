import { afterEach, describe, expect, it } from "vitest";
import type { ReplyFrame } from "../../src/devgateway/devGateway.js";
import { startStack, until, userEvent, type Stack, stackBuses, useStackBus, type StackOptions } from "../helpers/stack.js";

// Issue 16: splitting was quadratic in the length of a line, so one long reply blocked every
// session for seconds to minutes. Here a huge reply on one channel is delivered whole while
// another channel keeps being answered within 2 s.

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

const LIMIT = 4096;
const KB = 1024;
const other = { channel: { id: "chat-2", type: "dm" } };

/** The scripted agent's `long <n>`: numbered words, cut at n characters, no newline. */
function scriptedWords(n: number): string {
  let text = "";
  for (let i = 1; text.length < n; i++) text += `word${i} `;
  return text.slice(0, n);
}

/** The scripted agent's `streamed <n>`, chunk by chunk. */
function streamedText(n: number): string {
  const parts: string[] = [];
  for (let i = 1; i <= n; i++) parts.push(`part${i} `);
  return parts.join("");
}

interface Probes {
  /** Milliseconds from sending each probe to its reply arriving. */
  readonly latencies: number[];
  /** Probes sent while the long reply was still being delivered. */
  sentDuring: number;
  stop(): Promise<void>;
}

/**
 * Keeps one message in flight on the other channel for as long as it runs: the next is sent
 * when the previous one is answered. The broker, the gateway and this loop share one event loop,
 * so whenever the broker blocks, the probe in flight waits as long: its latency is the stall.
 */
function probeOtherChannel(s: Stack, delivering: () => boolean): Probes {
  const probes: Probes = { latencies: [], sentDuring: 0, stop: async () => undefined };
  let running = true;
  const loop = (async () => {
    while (running) {
      const event = userEvent("prose", other);
      const sentAt = performance.now();
      if (delivering()) probes.sentDuring += 1;
      s.gateway.broadcast(event);
      const answered = await until(() => replyTo(s.replies, event.event_id as string) !== undefined, 30_000);
      probes.latencies.push(answered ? performance.now() - sentAt : Infinity);
      if (!answered) return;
    }
  })();
  probes.stop = async () => {
    running = false;
    await loop;
  };
  return probes;
}

function replyTo(replies: readonly ReplyFrame[], eventId: string): ReplyFrame | undefined {
  return replies.find((reply) => reply.reply_to === eventId);
}

/**
 * Starts a stack with both conversations' agents already running, sends `prompt` on the first
 * channel while probing the second, and returns the first channel's frames once `done` says
 * they are all in.
 */
async function longTurn(options: StackOptions, prompt: string, done: (frames: readonly ReplyFrame[]) => boolean) {
  // Hundreds of messages in one chat and a probe a few times a second in another: far faster than
  // Telegram lets a bot post, which [rate_limits] would hold to (test/e2e/rateLimits.test.ts). What
  // is measured here is the text path and the other conversation's latency, so shaping is off.
  const s = (stack = await startStack({ ...options, config: { ...options.config, rate_limits: { telegram: { enabled: false } } } }));
  // Warm both sessions, so the probes measure the broker, not an agent process starting.
  s.gateway.broadcast(userEvent("prose"));
  s.gateway.broadcast(userEvent("prose", other));
  await s.replyCount(2, 30_000);
  const warm = s.replies.length;

  const event = userEvent(prompt);
  const frames = () => s.replies.filter((reply) => reply.reply_to === event.event_id);
  let delivered = false;
  const probes = probeOtherChannel(s, () => !delivered);
  s.gateway.broadcast(event);
  const complete = await until(() => done(frames()), 120_000);
  delivered = true;
  await probes.stop();
  expect(complete, `the long reply arrived whole (${frames().length} frames, ${s.replies.length - warm} replies in all)`).toBe(true);
  return { frames: frames(), probes };
}

function expectOtherChannelAnswered(probes: Probes): void {
  expect(probes.sentDuring).toBeGreaterThan(0);
  expect(Math.max(...probes.latencies)).toBeLessThan(2_000);
}

function expectChunked(frames: readonly ReplyFrame[]): void {
  for (const frame of frames) expect([...frame.content.text].length).toBeLessThanOrEqual(LIMIT);
}

const joined = (frames: readonly ReplyFrame[]) => frames.map((frame) => frame.content.text).join("");

describe.each(stackBuses())("a long reply never stalls another conversation (%s bus)", (bus) => {
  useStackBus(bus);

  it("text mode: a 400 KB single-line reply arrives whole in chunks of at most 4096 chars", { timeout: 180_000 }, async () => {
    // Plain text splits at whitespace and keeps it; the text path trims the reply's end.
    const reply = scriptedWords(400 * KB).trimEnd();
    const { frames, probes } = await longTurn({}, `long ${400 * KB}`, (sent) => joined(sent).length >= reply.length);
    expectChunked(frames);
    expect(joined(frames)).toBe(reply);
    expectOtherChannelAnswered(probes);
  });

  it("text mode: a turn of 100,000 chunks without a newline arrives whole", { timeout: 180_000 }, async () => {
    const reply = streamedText(100_000).trimEnd();
    const { frames, probes } = await longTurn({}, "streamed 100000", (sent) => joined(sent).length >= reply.length);
    expectChunked(frames);
    expect(joined(frames)).toBe(reply);
    expectOtherChannelAnswered(probes);
  });

  it("structured mode: a 150 KB bubble arrives whole in chunks of at most 4096 chars", { timeout: 180_000 }, async () => {
    const bubble = scriptedWords(150 * KB).trimEnd();
    const options: StackOptions = { config: { delivery: { mode: "structured", max_bubble_chars: 0 } } };
    const { frames, probes } = await longTurn(options, `bigbubble ${150 * KB}`, (sent) => joined(sent).length >= bubble.length);
    expectChunked(frames);
    expect(joined(frames)).toBe(bubble);
    expectOtherChannelAnswered(probes);
  });
});
