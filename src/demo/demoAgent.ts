#!/usr/bin/env node
// The bundled offline ACP agent behind `npm start`: no model, no network, a few canned replies as
// openab.turn.v1 envelopes (the demo runs in structured mode), so a fresh checkout shows whole
// turns end to end — bubbles, silence, a broken reply. Speaks ACP v1 over stdio like any agent.
import { createInterface } from "node:readline";

type Frame = { id?: number | string; method?: string; params?: Record<string, unknown> };

const help = [
  "I'm turnstream's offline demo agent. Try:",
  "• flight — three bubbles, about 400 ms apart",
  "• silent — a turn that decides to say nothing",
  "• broken — a truncated reply: you see the prose, never the JSON",
  "• slow — a reply that takes two seconds to decide",
  "• help — this message",
  "Anything else gets a short echo.",
].join("\n");

/** An `openab.turn.v1` envelope: the demo runs in structured mode. */
function envelope(texts: readonly string[], next: "stop" | "silent" = "stop"): string {
  return JSON.stringify({
    schema: "openab.turn.v1",
    messages: texts.map((text, i) => ({ id: `bubble_${i + 1}`, text })),
    next: { type: next },
  });
}

function write(frame: object): void {
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...frame })}\n`);
}

/** The reply for a prompt's text (the last text block: the message after the sender context), and how long to think first. */
function replyTo(text: string): { reply: string; thinkMs: number } {
  const words = text.trim().toLowerCase();
  if (words === "help" || words === "") return { reply: envelope([help]), thinkMs: 0 };
  if (words.includes("flight")) return { reply: envelope(["on it", "your flight moved to 8pm", "gate B12"]), thinkMs: 0 };
  if (words.includes("silent")) return { reply: envelope([], "silent"), thinkMs: 0 };
  if (words.includes("broken")) return { reply: 'sorry, one sec\n{"schema":"openab.turn.v1","messages":[{"id":"b1","te', thinkMs: 0 };
  if (words.includes("slow")) return { reply: envelope(["thought about it", "here is the answer"]), thinkMs: 2_000 };
  return { reply: envelope([`you said: ${text.trim()}`]), thinkMs: 0 };
}

function userText(prompt: unknown): string {
  const blocks = Array.isArray(prompt) ? (prompt as { type?: string; text?: string }[]) : [];
  const texts = blocks.filter((block) => block.type === "text" && typeof block.text === "string" && !block.text.startsWith("<sender_context>"));
  return texts.at(-1)?.text ?? "";
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
  if (frame.id === undefined) return; // notifications (session/cancel): every reply here is instant
  switch (frame.method) {
    case "initialize":
      write({ id: frame.id, result: { protocolVersion: 1, agentInfo: { name: "turnstream-demo-agent", version: "1" }, agentCapabilities: {} } });
      return;
    case "session/new":
      write({ id: frame.id, result: { sessionId: `demo-${process.pid}-${++sessions}` } });
      return;
    case "session/prompt": {
      const sessionId = frame.params?.sessionId;
      const { reply, thinkMs } = replyTo(userText(frame.params?.prompt));
      const answer = () => {
        write({ method: "session/update", params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: reply } } } });
        write({ id: frame.id, result: { stopReason: "end_turn" } });
      };
      if (thinkMs > 0) setTimeout(answer, thinkMs);
      else answer();
      return;
    }
    default:
      write({ id: frame.id, error: { code: -32601, message: "Method not found", data: { method: frame.method } } });
  }
}).on("close", () => process.exit(0));
