import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startStack, until, userEvent, type Stack } from "../helpers/stack.js";

// `[stt]` end to end: a real dev gateway, the broker, the scripted agent (its `echo` scenario
// answers with every text block of its prompt) and a local fake OpenAI-compatible
// `/audio/transcriptions` endpoint on 127.0.0.1.

let stack: Stack | undefined;
let server: Server | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
  await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
  server = undefined;
});

interface Heard {
  readonly url: string;
  readonly authorization: string | undefined;
  readonly body: string;
}

/** A fake transcription API: records each request and answers with `answer`. */
async function fakeStt(answer: (heard: Heard) => { status: number; body: string }): Promise<{ baseUrl: string; heard: Heard[] }> {
  const heard: Heard[] = [];
  server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const one = { url: request.url ?? "", authorization: request.headers.authorization, body: Buffer.concat(chunks).toString("latin1") };
      heard.push(one);
      const { status, body } = answer(one);
      response.writeHead(status, { "content-type": "application/json" }).end(body);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return { baseUrl: `http://127.0.0.1:${(server?.address() as AddressInfo).port}/v1`, heard };
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
