#!/usr/bin/env node
// The bundled offline ACP agent behind `npm start`: no model, no network, a few canned replies,
// so a fresh checkout shows a whole turn end to end. Speaks ACP v1 over stdio like any agent.
import { createInterface } from "node:readline";

type Frame = { id?: number | string; method?: string; params?: Record<string, unknown> };

const help = [
  "I'm turnstream's offline demo agent. Try:",
  "• flight — a status update about your flight",
  "• help — this message",
  "Anything else gets a short echo.",
].join("\n");

function write(frame: object): void {
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...frame })}\n`);
}

/** The reply for a prompt's text (the last text block: the message after the sender context). */
function replyTo(text: string): string {
  const words = text.trim().toLowerCase();
  if (words === "help" || words === "") return help;
  if (words.includes("flight")) return "on it — checking your booking\nyour flight moved to 8pm\ngate B12";
  return `you said: ${text.trim()}`;
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
      const text = replyTo(userText(frame.params?.prompt));
      write({ method: "session/update", params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } } });
      write({ id: frame.id, result: { stopReason: "end_turn" } });
      return;
    }
    default:
      write({ id: frame.id, error: { code: -32601, message: "Method not found", data: { method: frame.method } } });
  }
}).on("close", () => process.exit(0));
