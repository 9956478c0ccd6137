import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { lastValueFrom, tap, toArray } from "rxjs";
import type { AgentEvent } from "../../operators/delivery/agentEvent.js";
import { AcpClient } from "../../src/acp/client.js";
import { AcpRequestError, AgentExitedError, AgentSpawnError, HardTimeoutError } from "../../src/acp/errors.js";
import type { PromptOptions } from "../../src/acp/promptTurn.js";
import { agentConfig, eventually, isRunning, scratch } from "../helpers/agents.js";
import { captureLogs, type LogRecord } from "../helpers/logCapture.js";

const relaxed: PromptOptions = { hardTimeoutMs: 20_000, hungGraceMs: 2_000, livenessMs: 1_000 };

interface Started {
  client: AcpClient;
  records: LogRecord[];
  events(): string[];
  stdinLog: string;
}

const started: { client: AcpClient; cleanup(): void }[] = [];

afterEach(async () => {
  for (const { client, cleanup } of started.splice(0)) {
    await client.close();
    // No agent outlives its test.
    expect(isRunning(client.process.pid)).toBe(false);
    cleanup();
  }
});

async function start(agentEnv: Record<string, string> = {}, brokerEnv: NodeJS.ProcessEnv = process.env): Promise<Started> {
  const dir = scratch();
  const stdinLog = join(dir.dir, "stdin.log");
  const { logger, records } = captureLogs();
  const client = await AcpClient.start({
    agent: agentConfig({ AGENT_EVENTS_FILE: dir.eventsFile, AGENT_STDIN_LOG: stdinLog, ...agentEnv }),
    env: brokerEnv,
    logger,
  });
  started.push({ client, cleanup: dir.cleanup });
  return { client, records, events: dir.events, stdinLog };
}

async function turn(client: AcpClient, text: string, options = relaxed): Promise<AgentEvent[]> {
  const { sessionId } = await client.newSession(tmpdir());
  return lastValueFrom(client.prompt(sessionId, [{ type: "text", text }], options).pipe(toArray()));
}

/** Events until the turn errors, and the error. */
async function failingTurn(client: AcpClient, text: string, options = relaxed): Promise<{ events: AgentEvent[]; error: unknown }> {
  const { sessionId } = await client.newSession(tmpdir());
  const events: AgentEvent[] = [];
  return new Promise((resolve, reject) => {
    client.prompt(sessionId, [{ type: "text", text }], options).subscribe({
      next: (event) => events.push(event),
      error: (error: unknown) => resolve({ events, error }),
      complete: () => reject(new Error(`turn completed: ${JSON.stringify(events)}`)),
    });
  });
}

const end = { type: "end", stopReason: "end_turn" } as const;
const envelope =
  '{"schema":"openab.turn.v1","messages":[{"id":"bubble_1","text":"on it"},{"id":"bubble_2","text":"your flight moved to 8pm"},{"id":"bubble_3","text":"gate B12"}],"next":{"type":"stop"}}';

describe("AcpClient against the scripted agent (real child processes)", () => {
  it("initializes and reads the agent's capabilities", async () => {
    const { client } = await start({ LOAD_SESSION: "1" });
    expect(client.agentName).toBe("scripted-agent");
    expect(client.supportsLoadSession).toBe(true);
    expect(client.alive).toBe(true);
  });

  it.each([
    ["envelope", [{ type: "text", text: envelope }, end]],
    ["prose", [{ type: "text", text: "hey what's up" }, end]],
    ["text", [{ type: "text", text: "plain text reply, one message" }, end]],
    [
      "broken",
      [{ type: "text", text: 'sorry, one sec\n{"schema":"openab.turn.v1","messages":[{"id":"b1","te' }, end],
    ],
    [
      "sequential",
      [
        { type: "openab_message", id: "bubble_1", text: "on it" },
        { type: "openab_message", id: "bubble_2", text: "checking your mail now" },
        { type: "openab_message", id: "bubble_3", text: "your flight moved to 8pm\ngate B12" },
        end,
      ],
    ],
    [
      "chunks",
      [
        { type: "text", text: "Hello", messageId: "m1" },
        { type: "text", text: ", ", messageId: "m1" },
        { type: "text", text: "world", messageId: "m1" },
        end,
      ],
    ],
    [
      "tools",
      [
        { type: "tool_start", id: "call_1", title: "Reading file", kind: "read", status: "pending" },
        { type: "tool_update", id: "call_1", status: "in_progress" },
        { type: "tool_done", id: "call_1", title: "Read file", status: "completed" },
        { type: "tool_start", id: "call_2", title: "Running tests", kind: "execute", status: "pending" },
        { type: "tool_done", id: "call_2", status: "failed" },
        { type: "text", text: "done with tools" },
        end,
      ],
    ],
  ] as const)("streams the %s scenario's events in wire order", async (scenario, expected) => {
    const { client } = await start();
    expect(await turn(client, scenario)).toEqual(expected);
  });

  it("streams seqslow's bubbles as they are decided, SEQSLOW_MS apart", async () => {
    const { client } = await start({ SEQSLOW_MS: "300" });
    const { sessionId } = await client.newSession(tmpdir());
    const arrivals: number[] = [];
    const events = await lastValueFrom(
      client.prompt(sessionId, [{ type: "text", text: "seqslow" }], relaxed).pipe(
        tap((event) => event.type === "openab_message" && arrivals.push(Date.now())),
        toArray(),
      ),
    );
    expect(events.map((e) => e.type)).toEqual(["openab_message", "openab_message", "openab_message", "end"]);
    // Generous bound (shared machine): each bubble arrived on its own, not batched at the end.
    expect((arrivals[1] ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThanOrEqual(200);
    expect((arrivals[2] ?? 0) - (arrivals[1] ?? 0)).toBeGreaterThanOrEqual(200);
  });

  it("streams the multiline, silent and toolong envelopes verbatim as text", async () => {
    const { client } = await start();
    for (const scenario of ["multiline", "silent", "toolong"]) {
      const events = await turn(client, scenario);
      expect(events).toHaveLength(2);
      expect(events[0]).toMatchObject({ type: "text" });
      expect(JSON.parse((events[0] as { text: string }).text)).toMatchObject({ schema: "openab.turn.v1" });
    }
  });

  it("types thoughts, plans and config updates", async () => {
    const { client } = await start();
    const events = await turn(client, "thinking");
    expect(events.map((e) => e.type)).toEqual(["thought", "plan", "config_update", "text", "end"]);
    expect(events[1]).toEqual({ type: "plan", entries: [{ content: "step 1", priority: "high", status: "pending" }] });
  });

  it("keeps unknown variants as unknown events and skips an openab_message without text", async () => {
    const { client } = await start();
    const events = await turn(client, "unknown");
    expect(events).toEqual([
      { type: "unknown", sessionUpdate: "usage_update", raw: { sessionUpdate: "usage_update", used: 1, size: 2 } },
      { type: "unknown", sessionUpdate: "vendor_custom", raw: { sessionUpdate: "vendor_custom", payload: { x: 1 } } },
      { type: "text", text: "after unknowns" },
      end,
    ]);
  });

  it("reports usage with the stop reason", async () => {
    const { client } = await start();
    expect((await turn(client, "usage")).at(-1)).toEqual({
      type: "end",
      stopReason: "end_turn",
      usage: { inputTokens: 10, outputTokens: 0, totalTokens: 10 },
    });
  });

  it("skips garbage stdout lines, logs them, completes the turn and writes nothing back", async () => {
    const { client, records, stdinLog } = await start();
    expect(await turn(client, "garbage")).toEqual([{ type: "text", text: "first" }, { type: "text", text: "second" }, end]);
    const dropped = records.filter((r) => r.msg === "agent stdout line dropped");
    expect(dropped.map((r) => r.reason)).toEqual(["not_json", "not_json", "not_jsonrpc"]);
    const sent = readFileSync(stdinLog, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { method?: string });
    expect(sent.map((frame) => frame.method)).toEqual(["initialize", "session/new", "session/prompt"]);
  });

  it("fails a turn with AcpRequestError, OpenAB's display text, after the bubbles that arrived", async () => {
    const { client } = await start();
    const { events, error } = await failingTurn(client, "seqhalf");
    expect(events.map((e) => e.type)).toEqual(["openab_message", "openab_message"]);
    expect(error).toBeInstanceOf(AcpRequestError);
    expect((error as AcpRequestError).code).toBe(-32000);
    const detailed = await failingTurn(client, "error");
    expect((detailed.error as Error).message).toBe("JSON-RPC error -32000: simulated agent failure — upstream 503");
  });

  it("fails a turn with AgentExitedError and the exit code when the agent exits mid-turn", async () => {
    const { client } = await start();
    const began = Date.now();
    const { events, error } = await failingTurn(client, "crash");
    expect(events).toEqual([{ type: "text", text: "about to crash" }]);
    expect(error).toBeInstanceOf(AgentExitedError);
    expect(error).toMatchObject({ exitCode: 3, message: "Agent process exited unexpectedly" });
    expect(Date.now() - began).toBeLessThan(relaxed.livenessMs * 5);
    expect(client.alive).toBe(false);
  });

  it.each(["group", "setsid"])(
    "fails the turn as soon as the agent exits, whatever it left behind (%s), and reads nothing more from it",
    async (mode) => {
      const { client, events } = await start();
      const slowLiveness = { ...relaxed, livenessMs: 60_000 };
      const { events: seen, error } = await failingTurn(client, `leftover ${mode} 200`, slowLiveness);
      const pid = Number(events().find((line) => line.startsWith("grandchild "))?.split(" ")[1]);
      try {
        expect(error).toMatchObject({ exitCode: 3, message: "Agent process exited unexpectedly" });
        expect(seen).toEqual([]);
        if (mode === "group") expect(await eventually(() => !isRunning(pid), 3_000)).toBe(true);
        else expect(await eventually(() => events().includes(`leftover-write-failed ${pid} EPIPE`))).toBe(true);
      } finally {
        if (isRunning(pid)) process.kill(pid, "SIGKILL");
      }
    },
  );

  it("cancels a hung turn at the hard timeout and kills an agent that still does not answer", async () => {
    const { client, events } = await start();
    const { error } = await failingTurn(client, "hang", { hardTimeoutMs: 800, hungGraceMs: 400, livenessMs: 200 });
    expect(error).toBeInstanceOf(HardTimeoutError);
    expect(events().some((line) => line.startsWith("cancel sess-"))).toBe(true);
    expect(await eventually(() => !isRunning(client.process.pid))).toBe(true);
  });

  it("cancels a hung turn at the hard timeout and keeps an agent that answers the cancel", async () => {
    const { client, events } = await start();
    const { error } = await failingTurn(client, "hang-cancel", { hardTimeoutMs: 600, hungGraceMs: 3_000, livenessMs: 200 });
    expect(error).toBeInstanceOf(HardTimeoutError);
    expect(events().some((line) => line.startsWith("cancel sess-"))).toBe(true);
    expect(client.alive).toBe(true);
    expect(await turn(client, "prose")).toEqual([{ type: "text", text: "hey what's up" }, end]);
  });

  it("sends session/cancel when the turn is unsubscribed early", async () => {
    const { client, events } = await start();
    const { sessionId } = await client.newSession(tmpdir());
    const subscription = client.prompt(sessionId, [{ type: "text", text: "slow 3000" }], relaxed).subscribe();
    await eventually(() => events().some((line) => line.startsWith(`prompt ${sessionId}`)));
    subscription.unsubscribe();
    expect(await eventually(() => events().includes(`cancel ${sessionId}`))).toBe(true);
  });

  describe("answers session/request_permission by OpenAB's rule", () => {
    it.each([
      ["allow_once,allow_always,reject_once", { outcome: { outcome: "selected", optionId: "opt-allow_always" } }],
      ["reject_once,allow_once", { outcome: { outcome: "selected", optionId: "opt-allow_once" } }],
      ["reject_once,allow_persistent", { outcome: { outcome: "selected", optionId: "opt-allow_persistent" } }],
      ["reject_once,reject_always", { outcome: { outcome: "cancelled" } }],
      ["none", { outcome: { outcome: "selected", optionId: "allow_always" } }],
    ])("options %s → %j", async (kinds, expected) => {
      const { client, records } = await start();
      const events = await turn(client, `permission ${kinds}`);
      expect(JSON.parse((events[0] as { text: string }).text)).toEqual(expected);
      expect(records.find((r) => r.msg === "auto-respond permission")).toMatchObject({ outcome: expected.outcome });
    });
  });

  it("answers fs/* and terminal/* with -32601 and keeps the connection up", async () => {
    const { client, records } = await start();
    for (const [scenario, method] of [
      ["fsread", "fs/read_text_file"],
      ["terminal", "terminal/create"],
    ]) {
      const events = await turn(client, scenario as string);
      expect(JSON.parse((events[0] as { text: string }).text)).toEqual({ code: -32601, message: "Method not found", data: { method } });
    }
    expect(records.filter((r) => r.msg === "agent request refused").map((r) => r.method)).toEqual(["fs/read_text_file", "terminal/create"]);
  });

  it("starts the agent with a cleared environment and its working dir", async () => {
    const brokerEnv: NodeJS.ProcessEnv = { ...process.env, BROKER_SECRET: "do-not-leak", SHARED_SETTING: "inherited" };
    const dir = scratch();
    const { logger } = captureLogs();
    const client = await AcpClient.start({
      agent: { ...agentConfig({ EXPLICIT: "yes" }), working_dir: dir.dir, inherit_env: ["SHARED_SETTING"] },
      env: brokerEnv,
      logger,
    });
    started.push({ client, cleanup: dir.cleanup });
    const events = await turn(client, "env");
    const seen = JSON.parse((events[0] as { text: string }).text) as { cwd: string; env: Record<string, string> };
    expect(seen.cwd).toBe(dir.dir);
    expect(seen.env).toMatchObject({ EXPLICIT: "yes", SHARED_SETTING: "inherited", PATH: process.env.PATH });
    expect(seen.env.BROKER_SECRET).toBeUndefined();
    const allowed = new Set(["HOME", "PATH", "USER", "EXPLICIT", "SHARED_SETTING"]);
    // Node itself may add a handful of variables to its own process.env; none of them are the broker's.
    for (const name of Object.keys(seen.env)) if (!allowed.has(name)) expect(brokerEnv[name], name).toBeUndefined();
  });

  it("logs the agent's stderr at warn with control characters stripped", async () => {
    const { client, records } = await start();
    await turn(client, "stderr");
    // stderr is its own pipe: its line may be read after the turn's answer on stdout.
    const logged = () => records.find((r) => r.msg === "agent stderr" && String(r.line).includes("red"));
    await eventually(() => logged() !== undefined);
    const line = logged();
    expect(line).toMatchObject({ level: 40, line: "[scripted-agent] red and a bell  done" });
  });

  it("ignores chunks that arrive after the prompt was answered", async () => {
    const { client, records } = await start();
    expect(await turn(client, "late")).toEqual([{ type: "text", text: "before" }, end]);
    expect(await eventually(() => records.some((r) => r.msg === "session update outside a turn"))).toBe(true);
  });

  it("drops updates after the answer, even in the answer's own read, and keeps them out of the session's next turn", async () => {
    const { client, records } = await start();
    const { sessionId } = await client.newSession(tmpdir());
    const run = (text: string) => lastValueFrom(client.prompt(sessionId, [{ type: "text", text }], relaxed).pipe(toArray()));
    expect(await run("lateburst 100")).toEqual([{ type: "text", text: "before" }, end]);
    const late = () => records.filter((r) => r.msg === "session update outside a turn");
    expect(await eventually(() => late().length === 4)).toBe(true);
    expect(late().map((r) => [r.reason, r.level, r.sessionUpdate])).toEqual([
      ["late_update", 40, "agent_message_chunk"],
      ["late_update", 20, "agent_message_chunk"],
      ["late_update", 20, "openab_message"],
      ["late_update", 20, "agent_message_chunk"],
    ]);
    expect(await run("prose")).toEqual([{ type: "text", text: "hey what's up" }, end]);
  });

  it("keeps an abandoned turn's trailing updates out of the next turn until the agent answers the abandoned prompt", async () => {
    const { client, records, events } = await start();
    const { sessionId } = await client.newSession(tmpdir());
    // The agent ignores the cancel: 300 ms later it still sends a chunk and answers.
    const abandoned = client.prompt(sessionId, [{ type: "text", text: "stubborn 300" }], relaxed).subscribe();
    await eventually(() => events().includes(`prompt ${sessionId} stubborn`));
    abandoned.unsubscribe();
    const next = await lastValueFrom(client.prompt(sessionId, [{ type: "text", text: "slow 900" }], relaxed).pipe(toArray()));
    expect(next).toEqual([{ type: "text", text: "slow done" }, end]);
    expect(records.find((r) => r.msg === "session update outside a turn")).toMatchObject({ reason: "late_update", sessionUpdate: "agent_message_chunk" });
  });

  it("kills the whole process group on close, with SIGKILL when SIGTERM is ignored", async () => {
    const { client, events } = await start({ IGNORE_SIGTERM: "1", IGNORE_STDIN_EOF: "1", SPAWN_CHILD: "1" });
    await eventually(() => events().some((line) => line.startsWith("grandchild ")));
    const grandchild = Number(events().find((line) => line.startsWith("grandchild "))?.split(" ")[1]);
    expect(isRunning(grandchild)).toBe(true);
    const began = Date.now();
    await client.close();
    expect(Date.now() - began).toBeGreaterThanOrEqual(1_400);
    expect(events()).toContain("sigterm");
    expect(isRunning(client.process.pid)).toBe(false);
    expect(await eventually(() => !isRunning(grandchild))).toBe(true);
  });

  it("rejects with AgentSpawnError when the command cannot start", async () => {
    const { logger } = captureLogs();
    const failure = AcpClient.start({ agent: { ...agentConfig(), command: "/nonexistent/agent" }, env: process.env, logger });
    await expect(failure).rejects.toBeInstanceOf(AgentSpawnError);
  });
});
