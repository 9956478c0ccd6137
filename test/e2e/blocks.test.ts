import { afterEach, describe, expect, it } from "vitest";
import { startStack, stackBuses, until, userEvent, useStackBus, type Stack } from "../helpers/stack.js";

// Block streaming ([delivery.blocks], OpenClaw's): a 3,000-character reply written in 50-character
// chunks arrives as the chunker's blocks, in order, paced by human_delay = "natural", its fenced
// code block split into blocks that each open and close the fence, and no final after them.
// Real dev gateway, the scripted agent's `document`, both buses. Exact block contents and times
// are pinned in virtual time (test/operators/delivery/blocks/blockChunker.test.ts, textBlocks.marble.test.ts).

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

// The scripted agent's `document` reply (untyped JS: imported by URL).
const { DOCUMENT_REPLY } = (await import(new URL("../../fixtures/agents/scenarios.mjs", import.meta.url).href)) as { DOCUMENT_REPLY: string };
const FENCE = "```";

/** Every line of the reply's code block arrived whole, in one message. */
function expectCodeLinesWhole(texts: readonly string[]): void {
  const lines = new Set(texts.flatMap((text) => text.split("\n")));
  for (const line of DOCUMENT_REPLY.split("\n").filter((l) => l.startsWith("const batch"))) expect(lines.has(line), line).toBe(true);
}

/** A stack whose gateway notes when each reply message arrived. */
async function start(config: Record<string, unknown>): Promise<{ s: Stack; arrivals: { text: string; at: number }[] }> {
  const arrivals: { text: string; at: number }[] = [];
  stack = await startStack({ config: { reactions: { enabled: false }, ...config } });
  stack.gateway.received.subscribe((frame) => {
    if (frame.kind === "reply" && frame.frame.command === undefined) arrivals.push({ text: frame.frame.content.text, at: Date.now() });
  });
  return { s: stack, arrivals };
}

describe.each(stackBuses())("block streaming (%s bus)", (bus) => {
  useStackBus(bus);

  it("a 3,000-character reply arrives as blocks in order, natural gaps, fences intact, the final not sent again", async () => {
    const { s, arrivals } = await start({ delivery: { human_delay: "natural", blocks: { enabled: true } } });
    s.gateway.broadcast(userEvent("document"));
    expect(await until(() => s.records.some((r) => r.msg === "turn complete" || r.msg === "turn failed"), 40_000)).toBe(true);
    expect(s.records.some((r) => r.msg === "turn failed")).toBe(false);
    // Text mode writes without acks: the last frames may still be on the socket when the turn logs its end.
    // A fence is cut at a code line's end, whose line break the cut drops (every line here fits a block).
    const seam = "\u0000";
    const rejoin = (texts: readonly string[]) => texts.join(seam).replaceAll(`\n${FENCE}${seam}${FENCE}ts\n`, "\n").replaceAll(seam, "\n\n");
    await until(() => rejoin(arrivals.map((a) => a.text)) === DOCUMENT_REPLY, 20_000);
    const texts = arrivals.map((a) => a.text);
    expect(texts.length, JSON.stringify(texts, null, 1)).toBeGreaterThanOrEqual(3);
    for (const text of texts) {
      expect(text.length).toBeLessThanOrEqual(1200);
      // Every block is valid Markdown: each fence it opens it closes.
      expect(text.split("\n").filter((line) => line.startsWith(FENCE)).length % 2, text).toBe(0);
    }
    // Everything the agent wrote arrived once, in order, and nothing more (no assembled final): the
    // blocks put back together — a fence closed at a cut and reopened after it joined again, the
    // paragraph breaks the cuts consumed restored — are the reply exactly.
    expect(rejoin(texts), JSON.stringify(texts, null, 1)).toBe(DOCUMENT_REPLY);
    expect(texts).not.toContain(DOCUMENT_REPLY);
    // The code block was split across blocks, each reopening it with its language, no line cut in two.
    expect(texts.filter((text) => text.includes(`${FENCE}ts\n`)).length).toBeGreaterThanOrEqual(2);
    expectCodeLinesWhole(texts);
    // human_delay = "natural": 0.8–2.5 s between blocks, measured where they arrive.
    const gaps = arrivals.slice(1).map((a, i) => a.at - (arrivals[i]?.at ?? 0));
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(750);
      expect(gap).toBeLessThanOrEqual(2500 + 500);
    }
  }, 60_000);

  it("with response_prefix and max_chars 400: each message has the prefix, 400 chars at most, a fence it opens closed, no code line cut", async () => {
    const { s, arrivals } = await start({ delivery: { response_prefix: "🤖", blocks: { enabled: true, min_chars: 200, max_chars: 400 } } });
    s.gateway.broadcast(userEvent("document"));
    expect(await until(() => s.records.some((r) => r.msg === "turn complete" || r.msg === "turn failed"), 40_000)).toBe(true);
    expect(s.records.some((r) => r.msg === "turn failed")).toBe(false);
    const unprefixed = () => arrivals.map((a) => a.text.replace(/^🤖[ \n]/, ""));
    const seam = "\u0000";
    const rejoin = (texts: readonly string[]) => texts.join(seam).replaceAll(`\n${FENCE}${seam}${FENCE}ts\n`, "\n").replaceAll(seam, "\n\n");
    await until(() => rejoin(unprefixed()) === DOCUMENT_REPLY, 20_000);
    const texts = arrivals.map((a) => a.text);
    expect(rejoin(unprefixed()), JSON.stringify(texts, null, 1)).toBe(DOCUMENT_REPLY);
    for (const text of texts) {
      expect([...text].length, text).toBeLessThanOrEqual(400);
      expect(text.startsWith("🤖")).toBe(true);
      // The prefix never shares a line with a fence: on such a line the fence would not open.
      expect(text.split("\n").filter((line) => line.startsWith(FENCE)).length % 2, text).toBe(0);
      expect(text).not.toContain(`🤖 ${FENCE}`);
    }
    // The blocks that continue the code block open with the prefix alone on its line, then the fence.
    expect(texts.filter((text) => text.startsWith(`🤖\n${FENCE}ts\n`)).length).toBeGreaterThanOrEqual(3);
    expectCodeLinesWhole(texts);
  }, 60_000);

  it("a short reply reads as in text mode: one message", async () => {
    const { s, arrivals } = await start({ delivery: { blocks: { enabled: true } } });
    s.gateway.broadcast(userEvent("prose"));
    expect(await until(() => arrivals.length === 1 && s.records.some((r) => r.msg === "turn complete"), 20_000)).toBe(true);
    expect(arrivals.map((a) => a.text)).toEqual(["hey what's up"]);
  });
});
