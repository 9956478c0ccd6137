import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { postTranscription } from "../../src/stt/transcriptionExchange.js";

// One transcription exchange against real HTTP servers on 127.0.0.1: every outcome settles as a
// `Transcription`, within the timeout, and nothing is followed elsewhere.

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(respond: (request: IncomingMessage, response: ServerResponse) => void): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((request, response) => {
    hits += 1;
    request.resume();
    request.on("end", () => respond(request, response));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/audio/transcriptions`, hits: () => hits };
}

function post(url: string, timeoutMs = 5_000) {
  const form = new FormData();
  form.append("model", "m");
  return postTranscription({ url, form, headers: {}, timeoutMs });
}

describe("postTranscription", () => {
  it("the answer's text, trimmed", async () => {
    const server = await serve((_request, response) => response.end(JSON.stringify({ text: "  hello \n" })));
    expect(await post(server.url)).toEqual({ ok: true, text: "hello" });
  });

  it("no headers at all: timeout, at the timeout", async () => {
    const server = await serve(() => undefined);
    const started = performance.now();
    expect(await post(server.url, 300)).toEqual({ ok: false, reason: "timeout" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it("headers, then a stalled body: timeout, never a rejection", async () => {
    const server = await serve((_request, response) => response.writeHead(200).write('{"text":'));
    const started = performance.now();
    expect(await post(server.url, 300)).toEqual({ ok: false, reason: "timeout" });
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it("a redirect is an http_3xx failure and is not followed", async () => {
    const target = await serve((_request, response) => response.end(JSON.stringify({ text: "elsewhere" })));
    for (const status of [301, 302, 303, 307, 308]) {
      const server = await serve((_request, response) => response.writeHead(status, { location: target.url }).end());
      expect(await post(server.url)).toEqual({ ok: false, reason: `http_${status}` });
    }
    expect(target.hits()).toBe(0);
  });

  it("an answer over 1 MiB, not JSON, or without text: bad_response", async () => {
    for (const body of ["x".repeat((1 << 20) + 1), "not json", JSON.stringify({ txt: "a" })]) {
      const server = await serve((_request, response) => response.end(body));
      expect(await post(server.url)).toEqual({ ok: false, reason: "bad_response" });
    }
  });

  it("nothing listening: unreachable", async () => {
    const server = await serve(() => undefined);
    const { url } = server;
    const closing = servers.pop()!;
    await new Promise((resolve) => closing.close(resolve));
    expect(await post(url)).toEqual({ ok: false, reason: "unreachable" });
  });
});
