import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startStack, until, userEvent, type Stack } from "../helpers/stack.js";

// `[stt]` end to end: a real dev gateway, the broker, the scripted agent (its `echo` scenario
// answers with every text block of its prompt) and local fake OpenAI-compatible
// `/audio/transcriptions` endpoints on 127.0.0.1.

let stack: Stack | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
  for (const server of servers.splice(0)) {
    // A stalled answer's socket is cut, not waited for.
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

interface Heard {
  readonly url: string;
  readonly authorization: string | undefined;
  readonly body: string;
}

/** A transcription API that answers each request (once its body is read) as `respond` does. */
async function sttServer(respond: (heard: Heard, response: ServerResponse) => void): Promise<{ baseUrl: string; heard: Heard[] }> {
  const heard: Heard[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const one = { url: request.url ?? "", authorization: request.headers.authorization, body: Buffer.concat(chunks).toString("latin1") };
      heard.push(one);
      respond(one, response);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, heard };
}

/** A fake transcription API: records each request and answers with `answer`. */
function fakeStt(answer: (heard: Heard) => { status: number; body: string }): Promise<{ baseUrl: string; heard: Heard[] }> {
  return sttServer((heard, response) => {
    const { status, body } = answer(heard);
    response.writeHead(status, { "content-type": "application/json" }).end(body);
  });
}

const voice = {
  content: {
    type: "text",
    text: "",
    attachments: [{ type: "audio", filename: "voice.ogg", mime_type: "audio/ogg", data: Buffer.from("OggS-fake-voice").toString("base64"), size: 15 }],
  },
};

describe("[stt] speech-to-text end to end", () => {
  it("an audio attachment reaches the agent as upstream's transcript block", async () => {
    const stt = await fakeStt(() => ({ status: 200, body: JSON.stringify({ text: "book a flight to Oslo" }) }));
    stack = await startStack({ agentEnv: { SCENARIO: "echo" }, config: { stt: { enabled: true, base_url: stt.baseUrl, api_key: "stt-s3cret", model: "whisper-test" } } });
    stack.gateway.broadcast(userEvent("", voice));
    const [reply] = await stack.replyCount(1);
    expect(reply?.content.text).toContain("[Voice message transcript]: book a flight to Oslo");
    expect(stt.heard).toHaveLength(1);
    expect(stt.heard[0]?.url).toBe("/v1/audio/transcriptions");
    expect(stt.heard[0]?.authorization).toBe("Bearer stt-s3cret");
    expect(stt.heard[0]?.body).toContain('name="model"\r\n\r\nwhisper-test');
    expect(stt.heard[0]?.body).toContain('filename="voice.ogg"');
    expect(stt.heard[0]?.body).toContain("OggS-fake-voice");
    expect(JSON.stringify(stack.records)).not.toContain("stt-s3cret");
  });

  it("a failed transcription becomes the 'not delivered' note, and the turn still runs", async () => {
    const stt = await fakeStt(() => ({ status: 503, body: "{}" }));
    stack = await startStack({ agentEnv: { SCENARIO: "echo" }, config: { stt: { enabled: true, base_url: stt.baseUrl } } });
    stack.gateway.broadcast(userEvent("", { content: { ...voice.content, text: "what did I say?" } }));
    const [reply] = await stack.replyCount(1);
    expect(reply?.content.text).toContain('[System: attachment "voice.ogg" (audio/ogg, 15 B) was not delivered — transcription failed: http_503]');
    expect(reply?.content.text).toContain("what did I say?");
    expect(stack.records.find((r) => r.msg === "audio attachment not transcribed")).toMatchObject({ reason: "transcription_failed", failure: "http_503" });
  });

  it("echo_transcript posts > 🎤 <transcript> before the agent's reply; a failure says so and puts ⚠️ on the message", async () => {
    let calls = 0;
    const stt = await fakeStt(() => (++calls === 1 ? { status: 200, body: JSON.stringify({ text: "hello there" }) } : { status: 500, body: "" }));
    stack = await startStack({ agentEnv: { SCENARIO: "echo" }, config: { stt: { enabled: true, base_url: stt.baseUrl, echo_transcript: true } } });
    stack.gateway.broadcast(userEvent("", voice));
    const first = await stack.replyCount(2);
    expect(first[0]?.content.text).toBe("> 🎤 hello there");
    expect(first[1]?.content.text).toContain("[Voice message transcript]: hello there");
    const failing = userEvent("", voice);
    stack.gateway.broadcast(failing);
    const all = await stack.replyCount(4);
    expect(all[2]?.content.text).toBe("> 🎤 (transcription failed)");
    expect(await until(() => stack!.commands.some((frame) => frame.reply_to === failing.message_id && frame.content.text === "⚠️"), 5_000)).toBe(true);
  });
});

describe("[stt] failures never lose the turn", () => {
  const asked = "what did I say?";
  const note = (reason: string, size = "15 B") => `[System: attachment "voice.ogg" (audio/ogg, ${size}) was not delivered — transcription failed: ${reason}]`;
  const voiceAsking = (data = voice.content.attachments[0]!.data, size = 15) =>
    userEvent("", { content: { type: "text", text: asked, attachments: [{ ...voice.content.attachments[0], data, size }] } });

  /** The agent's reply (the last one) once `count` arrived, and how long after `since` it came. */
  async function answered(count: number, since: number): Promise<{ texts: string[]; afterMs: number }> {
    const replies = await stack!.replyCount(count, 20_000);
    return { texts: replies.map((reply) => reply.content.text), afterMs: Date.now() - since };
  }

  it("a 200 whose body stalls: the agent gets the note within the timeout, and the echo shows the failure", async () => {
    const stt = await sttServer((_heard, response) => response.writeHead(200, { "content-type": "application/json" }).write('{"te'));
    stack = await startStack({ agentEnv: { SCENARIO: "echo" }, config: { stt: { enabled: true, base_url: stt.baseUrl, timeout_secs: 1, echo_transcript: true } } });
    const started = Date.now();
    stack.gateway.broadcast(voiceAsking());
    const { texts, afterMs } = await answered(2, started);
    expect(texts[0]).toBe("> 🎤 (transcription failed)");
    expect(texts[1]).toContain(note("timeout"));
    expect(texts[1]).toContain(asked);
    // One second of timeout, then an agent turn: generous for a shared machine, far below "never".
    expect(afterMs).toBeLessThan(10_000);
    expect(stt.heard).toHaveLength(1);
    expect(stack.records.find((r) => r.msg === "audio attachment not transcribed")).toMatchObject({ reason: "transcription_failed", failure: "timeout" });
    expect(stack.records.filter((r) => r.msg === "turn failed" || r.level >= 50)).toEqual([]);
  });

  it("a body trickled a byte at a time is bounded by the same timeout", async () => {
    const trickles: NodeJS.Timeout[] = [];
    const stt = await sttServer((_heard, response) => {
      response.writeHead(200, { "content-type": "application/json" }).write('{"text":"');
      trickles.push(setInterval(() => response.write("a"), 50));
    });
    try {
      stack = await startStack({ agentEnv: { SCENARIO: "echo" }, config: { stt: { enabled: true, base_url: stt.baseUrl, timeout_secs: 1 } } });
      const started = Date.now();
      stack.gateway.broadcast(voiceAsking());
      const { texts, afterMs } = await answered(1, started);
      expect(texts[0]).toContain(note("timeout"));
      expect(afterMs).toBeGreaterThanOrEqual(900);
      expect(afterMs).toBeLessThan(10_000);
    } finally {
      for (const trickle of trickles) clearInterval(trickle);
    }
  });

  it("a redirect to another origin is not followed: that server hears nothing, the agent gets the note", async () => {
    const elsewhere = await fakeStt(() => ({ status: 200, body: JSON.stringify({ text: "stolen" }) }));
    const stt = await sttServer((_heard, response) => response.writeHead(307, { location: `${elsewhere.baseUrl}/audio/transcriptions` }).end());
    stack = await startStack({ agentEnv: { SCENARIO: "echo" }, config: { stt: { enabled: true, base_url: stt.baseUrl, api_key: "stt-s3cret" } } });
    stack.gateway.broadcast(voiceAsking());
    const { texts } = await answered(1, Date.now());
    expect(texts[0]).toContain(note("http_307"));
    expect(stt.heard).toHaveLength(1);
    // Give a follow-up request every chance to arrive before saying none did.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(elsewhere.heard).toEqual([]);
  });

  it("an inline voice note too big for [stt] is never posted: the agent gets the note", async () => {
    const stt = await fakeStt(() => ({ status: 200, body: JSON.stringify({ text: "never" }) }));
    stack = await startStack({
      agentEnv: { SCENARIO: "echo" },
      config: { gateway: { max_frame_bytes: 48 * 1024 * 1024 }, stt: { enabled: true, base_url: stt.baseUrl, echo_transcript: true } },
    });
    const big = 25 * 1024 * 1024 + 1;
    stack.gateway.broadcast(voiceAsking(Buffer.alloc(big, 7).toString("base64"), big));
    const { texts } = await answered(2, Date.now());
    expect(texts[0]).toBe("> 🎤 (transcription failed)");
    expect(texts[1]).toContain(note("too_large", "25.0 MB"));
    expect(texts[1]).toContain(asked);
    expect(stt.heard).toEqual([]);
  });

  it("a voice note in a frame over max_frame_bytes: the text arrives with the note, the echo shows the failure, nothing is posted", async () => {
    const stt = await fakeStt(() => ({ status: 200, body: JSON.stringify({ text: "never" }) }));
    stack = await startStack({
      agentEnv: { SCENARIO: "echo" },
      config: { gateway: { max_frame_bytes: 64 * 1024 }, stt: { enabled: true, base_url: stt.baseUrl, echo_transcript: true } },
    });
    stack.gateway.broadcast(voiceAsking(Buffer.alloc(100_000, 7).toString("base64"), 100_000));
    const { texts } = await answered(2, Date.now());
    expect(texts[0]).toBe("> 🎤 (transcription failed)");
    expect(texts[1]).toContain('[System: attachment "voice.ogg" (audio/ogg, 97.7 KB) was not delivered — too_large: the message was over the broker\'s max_frame_bytes]');
    expect(texts[1]).toContain(asked);
    expect(stt.heard).toEqual([]);
  });

  it("an audio attachment with empty data gets the note, and nothing is posted", async () => {
    const stt = await fakeStt(() => ({ status: 200, body: JSON.stringify({ text: "never" }) }));
    stack = await startStack({ agentEnv: { SCENARIO: "echo" }, config: { stt: { enabled: true, base_url: stt.baseUrl } } });
    stack.gateway.broadcast(voiceAsking("", 0));
    const { texts } = await answered(1, Date.now());
    expect(texts[0]).toContain(note("empty", "0 B"));
    expect(texts[0]).toContain(asked);
    expect(stt.heard).toEqual([]);
  });
});
