import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { resolveCapabilities } from "../../operators/ingress/frames/helloFrame.js";
import { parseGatewayFrame } from "../../operators/ingress/frames/gatewayFrames.js";
import { DevGateway, devGatewayHello } from "../../src/devgateway/devGateway.js";
import { runTerminal, type LineSource } from "../../src/devgateway/terminal.js";
import { until } from "../helpers/stack.js";

// A file a broker's reply carries, as the dev gateway takes and shows it: its hello says it takes
// files, the terminal and the chat page show each as one `📎 name (size)` line, above the caption.

let gateway: DevGateway | undefined;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await gateway?.close();
  gateway = undefined;
});

function open(url: string, origin?: string): Promise<WebSocket> {
  const ws = new WebSocket(url, origin === undefined ? {} : { origin });
  sockets.push(ws);
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
  });
}

function inbox(ws: WebSocket): unknown[] {
  const messages: unknown[] = [];
  ws.on("message", (data) => messages.push(JSON.parse(data.toString())));
  return messages;
}

const png = Buffer.alloc(1_500, 7);
const reply = (text: string, attachments?: unknown[]) =>
  JSON.stringify({
    schema: "openab.gateway.reply.v1",
    reply_to: "evt-1",
    platform: "telegram",
    channel: { id: "dev-chat" },
    content: { type: "text", text, ...(attachments === undefined ? {} : { attachments }) },
  });
const chart = { type: "image", filename: "chart.png", mime_type: "image/png", data: png.toString("base64"), size: png.byteLength };

describe("the dev gateway and files", () => {
  it("devGatewayHello says what the dev gateway does, files included", () => {
    const parsed = parseGatewayFrame(JSON.stringify({ schema: "openab.gateway.hello.v1", protocol_version: 1, ...devGatewayHello() }), 1 << 20);
    if (parsed.kind !== "hello") throw new Error(`not a hello: ${JSON.stringify(parsed)}`);
    expect(resolveCapabilities(parsed.hello, "telegram", { streaming: true, streamingPlaceholder: true })).toMatchObject({
      outboundFiles: true,
      sendAck: true,
      canEdit: true,
      canDelete: true,
      supportsReactions: true,
      streamingMode: "edit",
      messageLimit: 4096,
    });
  });

  it("answers a client_hello with devGatewayHello, and takes a reply's attachments", async () => {
    gateway = await DevGateway.start({ token: "secret", hello: devGatewayHello() });
    const received: unknown[] = [];
    gateway.received.subscribe((r) => received.push(r));
    const broker = await open(`${gateway.url}?token=secret`);
    const toBroker = inbox(broker);
    broker.send(JSON.stringify({ schema: "openab.gateway.client_hello.v1", protocol_version: 1, client_name: "test", requested_platforms: [] }));
    expect(await until(() => toBroker.length === 1, 5_000)).toBe(true);
    expect(toBroker[0]).toMatchObject({ schema: "openab.gateway.hello.v1", protocol_version: 1, capabilities: { telegram: { supports_outbound_attachments: true } } });

    broker.send(reply("the chart", [chart]));
    expect(await until(() => received.length === 1, 5_000)).toBe(true);
    expect(received[0]).toMatchObject({ kind: "reply", frame: { content: { text: "the chart", attachments: [chart] } } });
  });

  it("shows a file on the chat page's socket as its 📎 line beside the caption", async () => {
    gateway = await DevGateway.start({ token: "secret" });
    const broker = await open(`${gateway.url}?token=secret`);
    const ui = await open(`ws://127.0.0.1:${gateway.port}/ui?token=secret`, `http://127.0.0.1:${gateway.port}`);
    const toUi = inbox(ui);

    broker.send(reply("the chart", [chart]));
    broker.send(reply("no file"));
    expect(await until(() => toUi.length === 2, 5_000)).toBe(true);
    expect(toUi[0]).toMatchObject({ kind: "reply", text: "the chart", files: ["📎 chart.png (1.5 KB)"] });
    expect(toUi[1]).not.toHaveProperty("files");
  });

  it("prints a file in the terminal as its 📎 line, above the caption; a file without one alone", async () => {
    gateway = await DevGateway.start({ token: "secret" });
    const broker = await open(`${gateway.url}?token=secret`);
    const written: string[] = [];
    const lines = new EventEmitter() as LineSource & EventEmitter;
    const terminal = runTerminal({ gateway, lines, write: (text) => written.push(text), now: () => 0 });

    broker.send(reply("the chart\nas of today", [chart]));
    broker.send(reply("", [{ ...chart, type: "file", filename: "report.pdf", mime_type: "application/pdf" }]));
    expect(await until(() => written.length >= 6, 5_000)).toBe(true);
    terminal.unsubscribe();
    expect(written.join("")).toBe(
      [
        "◀ bubble #1 (+0.00s)",
        "│ 📎 chart.png (1.5 KB)",
        "│ the chart",
        "│ as of today",
        "└─ one message, 3 lines",
        "◀ bubble #2 (+0.00s)",
        "│ 📎 report.pdf (1.5 KB)",
        "",
      ].join("\n"),
    );
  });

  it("takes a reply whose attachment is malformed as something else, not as a reply", async () => {
    gateway = await DevGateway.start({ token: "secret" });
    const received: { kind: string }[] = [];
    gateway.received.subscribe((r) => received.push(r));
    const broker = await open(`${gateway.url}?token=secret`);
    broker.send(reply("bad", [{ type: "image", filename: "x.png" }]));
    expect(await until(() => received.length === 1, 5_000)).toBe(true);
    expect(received[0]?.kind).toBe("other");
  });
});
