import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { finished, runTurnstream, spawnTurnstream, waitForLine, type CliResult } from "../helpers/cli.js";
import { until } from "../helpers/stack.js";

/** What the chat page's `/ui` socket received: a reply bubble or the end of a turn, with when (test clock, ms). */
type UiMessage = { kind: "reply"; text: string; command?: string; at: number } | { kind: "idle"; at: number };

interface Demo {
  readonly child: ChildProcessWithoutNullStreams;
  readonly done: Promise<CliResult>;
  readonly ui: WebSocket;
  readonly inbox: UiMessage[];
  /** Sends a message as the chat page does. */
  say(text: string): void;
  /** Bubbles received so far (typing indicators left out). */
  bubbles(): Extract<UiMessage, { kind: "reply" }>[];
  idles(): number;
}

const demos: Demo[] = [];
afterEach(async () => {
  for (const demo of demos.splice(0)) {
    demo.ui.terminate();
    demo.child.stdin.end();
    await demo.done;
  }
});

/** The real `turnstream demo --delivery sequential` process, with the chat page's socket open. */
async function startSequentialDemo(): Promise<Demo> {
  const child = spawnTurnstream(["demo", "--delivery", "sequential"]);
  const done = finished(child);
  // Both start-up lines may arrive in one chunk: listen for both before awaiting either.
  const [modeLine, pageLine] = await Promise.all([
    waitForLine(child, (line) => line.startsWith("delivery: ")),
    waitForLine(child, (line) => line.startsWith("chat page: ")),
  ]);
  expect(modeLine).toMatch(/^delivery: sequential\b/);
  const page = new URL(pageLine.slice("chat page: ".length));
  // As the chat page opens it: the gateway's own origin (the only one /ui accepts), the page's token.
  const ui = new WebSocket(`ws://${page.host}/ui${page.search}`, { origin: page.origin });
  const inbox: UiMessage[] = [];
  ui.on("message", (data) => inbox.push({ ...(JSON.parse(data.toString()) as UiMessage), at: performance.now() }));
  await new Promise((resolve, reject) => ui.once("open", resolve).once("error", reject));
  const demo: Demo = {
    child,
    done,
    ui,
    inbox,
    say: (text) => ui.send(JSON.stringify({ text })),
    bubbles: () => inbox.filter((message) => message.kind === "reply" && message.command === undefined) as Extract<UiMessage, { kind: "reply" }>[],
    idles: () => inbox.filter((message) => message.kind === "idle").length,
  };
  demos.push(demo);
  return demo;
}

const texts = (demo: Demo) => demo.bubbles().map((bubble) => bubble.text);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("turnstream demo --delivery sequential (real process, real sockets)", () => {
  it("sends slow as three bubbles, in order, each arriving about 2 s after the one before", async () => {
    const demo = await startSequentialDemo();
    demo.say("slow");
    expect(await until(() => demo.idles() === 1, 15_000)).toBe(true);
    expect(texts(demo)).toEqual(["on it", "still checking…", "done: your flight moved to 8pm"]);
    const [first, second, third] = demo.bubbles().map((bubble) => bubble.at);
    // Read from the demo's terminal: a bubble read late shortens the next gap by as much (a full
    // run, other suites busy on both cores, saw 1.53 s), so each gap is bounded well clear of
    // "sent together" and the two together must span the agent's 2 × 2 s.
    for (const gap of [second! - first!, third! - second!]) {
      expect(gap).toBeGreaterThanOrEqual(1_000);
      expect(gap).toBeLessThan(6_000);
    }
    expect(third! - first!).toBeGreaterThanOrEqual(3_600);
  });

  it("sends flight as three bubbles", async () => {
    const demo = await startSequentialDemo();
    demo.say("flight");
    expect(await until(() => demo.idles() === 1, 10_000)).toBe(true);
    expect(texts(demo)).toEqual(["on it", "your flight moved to 8pm", "gate B12"]);
  });

  it("delivers nothing for silent: the turn finishes and no message reaches the chat", async () => {
    const demo = await startSequentialDemo();
    demo.say("silent");
    expect(await until(() => demo.idles() === 1, 10_000)).toBe(true);
    await pause(1_500);
    expect(demo.inbox.filter((message) => message.kind === "reply")).toEqual([]);
  });

  it("keeps broken's first bubble and then reports the failed turn", async () => {
    const demo = await startSequentialDemo();
    demo.say("broken");
    expect(await until(() => demo.idles() === 1, 10_000)).toBe(true);
    expect(texts(demo)).toEqual(["sorry, one sec", "⚠️ sequential turn failed after 1 bubble(s): JSON-RPC error -32000: the demo agent broke off mid-reply"]);
  });

  it("/cancel during slow stops the remaining bubbles", async () => {
    const demo = await startSequentialDemo();
    demo.say("slow");
    expect(await until(() => texts(demo).includes("on it"), 10_000)).toBe(true);
    demo.say("/cancel");
    // Two turns end: the /cancel command's and the cancelled slow turn's.
    expect(await until(() => demo.idles() === 2, 10_000)).toBe(true);
    await pause(2_500);
    expect(texts(demo)).toEqual(["on it", "🛑 Cancel signal sent."]);
  });
});

describe("turnstream demo --delivery (option errors)", () => {
  it("refuses an unknown delivery mode with exit 2 and names the allowed values", async () => {
    const result = await runTurnstream(["demo", "--delivery", "bubbles"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe('turnstream: --delivery "bubbles" is not allowed; expected one of structured, sequential\n');
  });

  it("refuses --delivery without a value with exit 2", async () => {
    const result = await runTurnstream(["demo", "--delivery"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^turnstream: .*--delivery/);
  });
});
