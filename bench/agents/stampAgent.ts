// A minimal ACP agent for the latency benchmarks (newline-delimited JSON-RPC on stdio, no
// dependencies). Each prompt's last text block picks what it does:
//
//   bubbles <n> <gapMs>  n `openab_message` updates, gapMs apart; each bubble's text is the
//                        monotonic clock (ns, CLOCK_MONOTONIC: the same clock in every process on
//                        the machine) read just before its line is written: `t=<ns>`
//   envelope <n>         one `openab.turn.v1` envelope with n bubbles, as the reply text
//   echo <text>          one `agent_message_chunk` with `<text>` (the soak benchmark's turns)
//
// stdout to a pipe is synchronous on Linux, so the stamp is taken right before the bytes leave.
import { createInterface } from "node:readline";

type Id = string | number | null;

const write = (message: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
const respond = (id: Id, result: unknown) => write({ id, result });
const update = (sessionId: string, body: Record<string, unknown>) => write({ method: "session/update", params: { sessionId, update: body } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let sessions = 0;

async function prompt(id: Id, sessionId: string, blocks: readonly { type?: string; text?: string }[]): Promise<void> {
  const last = blocks.filter((block) => block.type === "text").at(-1)?.text?.trim() ?? "";
  const [scenario = "", first = "", second = ""] = last.split(/\s+/);
  if (scenario === "bubbles") {
    const count = Number(first);
    const gapMs = Number(second);
    for (let n = 1; n <= count; n++) {
      if (n > 1) await sleep(gapMs);
      update(sessionId, { sessionUpdate: "openab_message", id: `bubble_${n}`, content: { type: "text", text: `t=${process.hrtime.bigint()}` } });
    }
  } else if (scenario === "envelope") {
    const messages = Array.from({ length: Number(first) }, (_, i) => ({ id: `bubble_${i + 1}`, text: `bubble ${i + 1}` }));
    const text = JSON.stringify({ schema: "openab.turn.v1", messages, next: { type: "stop" } });
    update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  } else if (scenario === "echo") {
    update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: last.slice("echo".length).trim() } });
  } else {
    update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `unknown scenario ${JSON.stringify(last)}` } });
  }
  respond(id, { stopReason: "end_turn" });
}

createInterface({ input: process.stdin, crlfDelay: Infinity })
  .on("line", (line) => {
    if (line.trim() === "") return;
    const message = JSON.parse(line) as { id?: Id; method?: string; params?: Record<string, unknown> };
    if (message.method === undefined || message.id === undefined) return; // notifications (cancel) and responses
    switch (message.method) {
      case "initialize":
        return respond(message.id, { protocolVersion: 1, agentInfo: { name: "stamp-agent", version: "1" }, agentCapabilities: { loadSession: false }, authMethods: [] });
      case "session/new":
        return respond(message.id, { sessionId: `stamp-${process.pid}-${++sessions}` });
      case "session/prompt": {
        const params = message.params ?? {};
        void prompt(message.id, String(params.sessionId), Array.isArray(params.prompt) ? params.prompt : []);
        return;
      }
      default:
        return write({ id: message.id, error: { code: -32601, message: "Method not found" } });
    }
  })
  .on("close", () => process.exit(0));
process.stdout.on("error", () => process.exit(0));
