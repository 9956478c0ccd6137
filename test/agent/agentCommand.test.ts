import { afterEach, describe, expect, it } from "vitest";
import { calls, FakeChatCompletions, replyCall } from "../helpers/fakeChatCompletions.js";
import { finished, runTurnstream, spawnTurnstream } from "../helpers/cli.js";

let fake: FakeChatCompletions | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** The caller's environment without any TURNSTREAM_AGENT_* (a developer's shell must not leak in). */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("TURNSTREAM_AGENT_")) env[key] = value;
  return { ...env, ...extra };
}

const frame = (message: object) => `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`;

describe("turnstream agent (the built CLI, as a real process)", () => {
  it("without a base URL or model: one line per problem, exit 2", async () => {
    const result = await runTurnstream(["agent"], { env: cleanEnv() });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n")).toEqual([
      "turnstream: agent: TURNSTREAM_AGENT_BASE_URL (or --base-url) is required: the OpenAI-compatible endpoint, e.g. https://api.openai.com/v1",
      "turnstream: agent: TURNSTREAM_AGENT_MODEL (or --model) is required: the model name the endpoint serves",
    ]);
  });

  it("bad flag values and an unknown flag are usage errors", async () => {
    const bad = await runTurnstream(["agent", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--mode", "bubbles"], { env: cleanEnv() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('TURNSTREAM_AGENT_MODE (or --mode) must be one of envelope, sequential, got "bubbles"');
    const unknown = await runTurnstream(["agent", "--api-key", "sk"], { env: cleanEnv() });
    expect(unknown.code).toBe(2);
    const level = await runTurnstream(["agent"], { env: cleanEnv({ TURNSTREAM_AGENT_BASE_URL: "http://127.0.0.1:9/v1", TURNSTREAM_AGENT_MODEL: "m", LOG_LEVEL: "loud" }) });
    expect(level.code).toBe(2);
    expect(level.stderr).toContain("LOG_LEVEL");
  });

  it("--help prints its usage and exits 0; the main help lists the command", async () => {
    const help = await runTurnstream(["agent", "--help"], { env: cleanEnv() });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: turnstream agent");
    expect(help.stdout).toContain("TURNSTREAM_AGENT_API_KEY");
    expect((await runTurnstream(["--help"], { env: cleanEnv() })).stdout).toContain("turnstream agent");
  });

  it("speaks ACP on stdio: only JSON-RPC lines on stdout, logs on stderr; exits 0 when stdin ends", async () => {
    fake = await FakeChatCompletions.start([calls({ name: "mystery", arguments: {} }), calls(replyCall(["on it", "done"]))]);
    const child = spawnTurnstream(["agent", "--model", "flag-model"], {
      env: cleanEnv({ TURNSTREAM_AGENT_BASE_URL: fake.url, TURNSTREAM_AGENT_API_KEY: "sk-test" }),
    });
    const result = finished(child);
    let out = "";
    const answered = (id: number) =>
      new Promise<void>((resolve) => {
        const check = () => (out.split("\n").some((line) => line.includes(`"id":${id},`)) ? resolve() : setTimeout(check, 20));
        check();
      });
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    child.stdin.write(frame({ id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } }));
    child.stdin.write(frame({ id: 2, method: "session/new", params: { cwd: "/tmp", mcpServers: [] } }));
    await answered(2);
    const sessionId = (JSON.parse(out.split("\n")[1] ?? "{}") as { result: { sessionId: string } }).result.sessionId;
    child.stdin.write(frame({ id: 3, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "hi" }] } }));
    await answered(3);
    child.stdin.end();
    const { code, stdout, stderr } = await result;
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n").map((line) => JSON.parse(line) as { id?: number; result?: unknown; params?: { update: { content: { text: string } } } });
    expect(lines.map((line) => line.id ?? "update")).toEqual([1, 2, "update", 3]);
    expect(JSON.parse(lines[2]?.params?.update.content.text ?? "{}")).toMatchObject({ messages: [{ text: "on it" }, { text: "done" }] });
    expect(lines[3]?.result).toEqual({ stopReason: "end_turn" });
    // The default level is warn: the unknown tool's line is there, as JSON on stderr.
    const logged = stderr.trim().split("\n").map((line) => JSON.parse(line) as { msg: string });
    expect(logged.map((line) => line.msg)).toEqual(["unknown tool called"]);
    expect(fake.requests[0]?.body.model).toBe("flag-model");
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer sk-test");
  });

  it("SIGTERM stops it with exit 0", async () => {
    const child = spawnTurnstream(["agent"], { env: cleanEnv({ TURNSTREAM_AGENT_BASE_URL: "http://127.0.0.1:9/v1", TURNSTREAM_AGENT_MODEL: "m" }) });
    const result = finished(child);
    child.stdin.write(frame({ id: 1, method: "initialize", params: { protocolVersion: 1 } }));
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    child.kill("SIGTERM");
    expect((await result).code).toBe(0);
  });
});
