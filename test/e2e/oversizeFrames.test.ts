import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { runTurnstream } from "../helpers/cli.js";
import { startStack, userEvent, type Stack } from "../helpers/stack.js";

// Frames over `[gateway] max_frame_bytes`, end to end: a real dev gateway (WebSocket server), the
// broker, the scripted agent (its `echo` scenario answers with every text block of its prompt).

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

const dir = mkdtempSync(join(tmpdir(), "turnstream-frames-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An event in `chat` carrying one inline voice note of `bytes` bytes. */
function voiceNote(chat: string, text: string, bytes: number): Record<string, unknown> {
  const data = Buffer.alloc(bytes, 0x5a).toString("base64");
  return userEvent("", {
    channel: { id: chat, type: "dm" },
    content: { type: "text", text, attachments: [{ type: "audio", filename: "voice.ogg", mime_type: "audio/ogg", data, size: bytes }] },
  });
}

describe("[gateway] max_frame_bytes", () => {
  it("a 70 MB frame costs its attachment, not the connection: every other chat is answered, and its own text too", async () => {
    stack = await startStack({ agentEnv: { SCENARIO: "echo" } });
    // 52.5 MB of audio: a 70 MB frame once base64'd, over ws' old 64 MiB cap and the 4 MiB default.
    const big = voiceNote("chat-big", "listen to this", 52_500_000);
    stack.gateway.broadcast(big);
    stack.gateway.broadcast(userEvent("", { channel: { id: "chat-2", type: "dm" }, content: { type: "text", text: "still there?" } }));
    const replies = await stack.replyCount(2, 30_000);
    const byChat = new Map(replies.map((reply) => [reply.channel.id, reply.content.text]));
    expect(byChat.get("chat-2")).toContain("still there?");
    expect(byChat.get("chat-big")).toContain("listen to this");
    expect(byChat.get("chat-big")).toContain('[System: attachment "voice.ogg" (audio/ogg, 50.1 MB) was not delivered — too_large:');
    expect(stack.records.filter((r) => r.msg === "connected to gateway")).toHaveLength(1);
    expect(stack.records.filter((r) => r.msg === "gateway disconnected")).toEqual([]);
    const logged = stack.records.find((r) => r.reason === "frame_too_large");
    expect(logged).toMatchObject({ attachments: 1, maxFrameBytes: 4 * 1024 * 1024 });
    expect(logged?.bytes).toBeGreaterThan(70_000_000);
  });

  it("an oversize frame whose size is not its attachments is dropped with a reason; the next message is answered", async () => {
    stack = await startStack({ agentEnv: { SCENARIO: "echo" }, config: { gateway: { max_frame_bytes: 4096 } } });
    stack.gateway.broadcast(userEvent("x".repeat(8192)));
    stack.gateway.broadcast(userEvent("after"));
    const [reply] = await stack.replyCount(1);
    expect(reply?.content.text).toContain("after");
    expect(stack.records.find((r) => r.msg === "gateway frame dropped")).toMatchObject({ reason: "too_large" });
  });

  it("a value over the connector's ceiling is refused at start-up with one line", async () => {
    const file = join(dir, "too-big.toml");
    writeFileSync(file, `[gateway]\nurl = "ws://127.0.0.1:1/ws"\nmax_frame_bytes = 200000000\n`);
    const ran = await runTurnstream(["run", "--config", file], { env: { HOME: dir } });
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe("");
    expect(ran.stderr.trimEnd().split("\n")).toEqual([
      `turnstream: ${file}: gateway.max_frame_bytes: 200000000 is not allowed; expected an integer from 1024 to 134217728 (128 MiB: the largest frame the gateway connector reads)`,
    ]);
  });
});
