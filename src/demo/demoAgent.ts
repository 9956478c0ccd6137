#!/usr/bin/env node
// The bundled offline ACP agent behind `npm start`: no model, no network, a few canned scenarios,
// so a fresh checkout shows whole turns end to end — bubbles, silence, a broken reply. It speaks
// the delivery mode `turnstream demo` runs (TURNSTREAM_DEMO_DELIVERY): structured (default) answers
// with one openab.turn.v1 envelope, sequential sends each bubble as an `openab_message` the moment
// it decides it. Speaks ACP v1 over stdio like any agent.
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";

type Frame = { id?: number | string; method?: string; params?: Record<string, unknown> };
type Delivery = "structured" | "sequential";
type Scenario = "help" | "flight" | "silent" | "broken" | "slow" | "echo";

/** One session update to send, after `afterMs` of thinking. */
interface Beat {
  readonly afterMs: number;
  readonly update: Record<string, unknown>;
}

/** What the agent does for one prompt: its beats in order, then how the prompt is answered. */
interface Reply {
  readonly beats: readonly Beat[];
  readonly end: { readonly result: { stopReason: "end_turn" } } | { readonly error: { code: number; message: string } };
}

const delivery: Delivery = process.env.TURNSTREAM_DEMO_DELIVERY === "sequential" ? "sequential" : "structured";

/** The broker's `[silent] token` (the demo config sets it): a whole reply of it delivers nothing. */
const SILENT_TOKEN = "NO_REPLY";
const SLOW_MS = 2_000;
const FLIGHT = ["on it", "your flight moved to 8pm", "gate B12"];
const SEQUENTIAL_HINT = "`turnstream demo --delivery sequential`";

const help: Record<Delivery, string> = {
  structured: [
    "I'm turnstream's offline demo agent, in structured mode (one envelope per turn). Try:",
    "• flight — three bubbles, about 400 ms apart",
    "• silent — a turn that decides to say nothing",
    "• broken — a truncated reply: you see the prose, never the JSON",
    `• slow — one reply after 2 s of thinking (bubbles sent 2 s apart need ${SEQUENTIAL_HINT})`,
    "• help — this message",
    "Anything else gets a short echo.",
  ].join("\n"),
  sequential: [
    "I'm turnstream's offline demo agent, in sequential mode (each bubble sent as I decide it). Try:",
    "• flight — three bubbles at once",
    "• slow — three bubbles, 2 s apart",
    "• silent — a turn that decides to say nothing",
    "• broken — one bubble, then the agent fails: you keep what arrived",
    "• help — this message",
    "Anything else gets a short echo.",
  ].join("\n"),
};

/** The scenario a message asks for (the last text block: the message after the sender context). */
function scenarioOf(text: string): Scenario {
  const words = text.trim().toLowerCase();
  if (words === "help" || words === "") return "help";
  const named = (["flight", "silent", "broken", "slow"] as const).find((name) => words.includes(name));
  return named ?? "echo";
}

const endTurn = { result: { stopReason: "end_turn" } } as const;

/** Structured mode: one `agent_message_chunk` carrying the turn's envelope (or the broken prose). */
function structuredReply(scenario: Scenario, text: string): Reply {
  const say = (reply: string, afterMs = 0): Reply => ({ beats: [{ afterMs, update: chunk(reply) }], end: endTurn });
  switch (scenario) {
    case "help":
      return say(envelope([help.structured]));
    case "flight":
      return say(envelope(FLIGHT));
    case "silent":
      return say(envelope([], "silent"));
    case "broken":
      return say('sorry, one sec\n{"schema":"openab.turn.v1","messages":[{"id":"b1","te');
    case "slow":
      // Structured delivery paces only by bubble_delay_ms: the thinking shows, sequential beats cannot.
      return say(
        envelope([`this demo runs in structured mode: one reply after 2 s of thinking. Run ${SEQUENTIAL_HINT} to see bubbles sent 2 s apart as the agent decides them`]),
        SLOW_MS,
      );
    case "echo":
      return say(envelope([`you said: ${text.trim()}`]));
  }
}

/** Sequential mode: `openab_message` bubbles while the prompt runs, then the prompt's answer. */
function sequentialReply(scenario: Scenario, text: string): Reply {
  const bubbles = (texts: readonly string[], gapMs = 0): Beat[] =>
    texts.map((bubbleText, i) => ({ afterMs: i === 0 ? 0 : gapMs, update: bubble(i + 1, bubbleText) }));
  switch (scenario) {
    case "help":
      return { beats: bubbles([help.sequential]), end: endTurn };
    case "flight":
      return { beats: bubbles(FLIGHT), end: endTurn };
    case "silent":
      // No bubble falls through to the text path, where an empty reply still says "_(no response)_".
      return { beats: [{ afterMs: 0, update: chunk(SILENT_TOKEN) }], end: endTurn };
    case "broken":
      return { beats: bubbles(["sorry, one sec"]), end: { error: { code: -32000, message: "the demo agent broke off mid-reply" } } };
    case "slow":
      return { beats: bubbles(["on it", "still checking…", "done: your flight moved to 8pm"], SLOW_MS), end: endTurn };
    case "echo":
      return { beats: bubbles([`you said: ${text.trim()}`]), end: endTurn };
  }
}

/** An `openab.turn.v1` envelope. */
function envelope(texts: readonly string[], next: "stop" | "silent" = "stop"): string {
  return JSON.stringify({
    schema: "openab.turn.v1",
    messages: texts.map((text, i) => ({ id: `bubble_${i + 1}`, text })),
    next: { type: next },
  });
}

function chunk(text: string): Record<string, unknown> {
  return { sessionUpdate: "agent_message_chunk", content: { type: "text", text } };
}

/** One bubble, in the shape of fixtures/sequential-message-v1.json. */
function bubble(n: number, text: string): Record<string, unknown> {
  return { sessionUpdate: "openab_message", id: `bubble_${n}`, content: { type: "text", text } };
}

function write(frame: object): void {
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...frame })}\n`);
}

function userText(prompt: unknown): string {
  const blocks = Array.isArray(prompt) ? (prompt as { type?: string; text?: string }[]) : [];
  const texts = blocks.filter((block) => block.type === "text" && typeof block.text === "string" && !block.text.startsWith("<sender_context>"));
  return texts.at(-1)?.text ?? "";
}

/** Running prompts by session, so `session/cancel` can stop the one it names. */
const running = new Map<unknown, AbortController>();

/** Sends the reply's beats in order; a cancel stops the rest and answers `cancelled` instead. */
async function play(id: number | string, sessionId: unknown, reply: Reply): Promise<void> {
  const turn = new AbortController();
  running.set(sessionId, turn);
  for (const { afterMs, update } of reply.beats) {
    // A cancel ends the pause early (the rejection is the abort itself).
    if (afterMs > 0) await sleep(afterMs, undefined, { signal: turn.signal }).catch(() => undefined);
    if (turn.signal.aborted) break;
    write({ method: "session/update", params: { sessionId, update } });
  }
  running.delete(sessionId);
  write(turn.signal.aborted ? { id, result: { stopReason: "cancelled" } } : { id, ...reply.end });
}

let sessions = 0;
createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", (line) => {
  let frame: Frame;
  try {
    frame = JSON.parse(line) as Frame;
  } catch {
    process.stderr.write("demo-agent: ignoring a line that is not JSON\n");
    return;
  }
  if (frame.id === undefined) {
    // A cancelled turn answers `cancelled`, and the broker then delivers nothing more of it.
    if (frame.method === "session/cancel") running.get(frame.params?.sessionId)?.abort();
    return; // other notifications need no answer
  }
  switch (frame.method) {
    case "initialize":
      write({ id: frame.id, result: { protocolVersion: 1, agentInfo: { name: "turnstream-demo-agent", version: "1" }, agentCapabilities: {} } });
      return;
    case "session/new":
      write({ id: frame.id, result: { sessionId: `demo-${process.pid}-${++sessions}` } });
      return;
    case "session/prompt": {
      const text = userText(frame.params?.prompt);
      const replyFor = delivery === "sequential" ? sequentialReply : structuredReply;
      void play(frame.id, frame.params?.sessionId, replyFor(scenarioOf(text), text));
      return;
    }
    default:
      write({ id: frame.id, error: { code: -32601, message: "Method not found", data: { method: frame.method } } });
  }
}).on("close", () => process.exit(0));
