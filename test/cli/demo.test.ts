import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { finished, runTurnstream, spawnTurnstream, waitForLine } from "../helpers/cli.js";

describe("turnstream demo (what npm start runs)", () => {
  it("answers a typed message through the local gateway, the broker and the offline agent, then exits 0 on end of input", async () => {
    const child = spawnTurnstream(["demo"]);
    const done = finished(child);
    await waitForLine(child, (line) => line.startsWith("chat page: http://127.0.0.1:"));
    child.stdin.write("hello there\n");
    await waitForLine(child, (line) => line === "│ you said: hello there");
    child.stdin.write("flight\n");
    await waitForLine(child, (line) => line === "│ gate B12");
    child.stdin.end();
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/◀ bubble #1 \(\+\d+\.\d\ds\)\n│ you said: hello there\n/);
    // Structured mode: three bubbles, each its own message (exact pacing is asserted in virtual time).
    expect(result.stdout).toMatch(/◀ bubble #1 \(\+\d+\.\d\ds\)\n│ on it\n◀ bubble #2 \(\+\d+\.\d\ds\)\n│ your flight moved to 8pm\n◀ bubble #3 \(\+\d+\.\d\ds\)\n│ gate B12\n/);
    expect(result.stderr).toBe("");
  });

  it("runs structured delivery by default and says so, pointing at --delivery sequential for slow", async () => {
    const child = spawnTurnstream(["demo"]);
    const done = finished(child);
    // Both start-up lines may arrive in one chunk: listen for both before awaiting either.
    const [modeLine] = await Promise.all([
      waitForLine(child, (line) => line.startsWith("delivery: ")),
      waitForLine(child, (line) => line.startsWith("chat page: ")),
    ]);
    expect(modeLine).toMatch(/^delivery: structured\b/);
    expect(modeLine).toContain("turnstream demo --delivery sequential");
    child.stdin.write("slow\n");
    await waitForLine(child, (line) => line.startsWith("│ this demo runs in structured mode"));
    child.stdin.end();
    const result = await done;
    expect(result.code).toBe(0);
    // One reply, decided after 2 s of thinking.
    expect(result.stdout).toMatch(/◀ bubble #1 \(\+(\d+\.\d\d)s\)\n│ this demo runs in structured mode: one reply after 2 s of thinking\. Run `turnstream demo --delivery sequential`/);
    expect(Number(/◀ bubble #1 \(\+(\d+\.\d\d)s\)\n│ this demo/.exec(result.stdout)?.[1])).toBeGreaterThanOrEqual(1.9);
    expect(result.stdout).not.toContain("◀ bubble #2");
  });

  it("documents --delivery in its help", async () => {
    const result = await runTurnstream(["demo", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Usage: turnstream demo [--delivery structured|sequential]");
  });

  it("stops gracefully on SIGTERM", async () => {
    const child = spawnTurnstream(["demo"]);
    const done = finished(child);
    await waitForLine(child, (line) => line.startsWith("turnstream demo — gateway"));
    child.kill("SIGTERM");
    expect((await done).code).toBe(0);
  });
});

describe("turnstream demo with piped input (a newcomer's first ten minutes)", () => {
  it("echo flight | turnstream demo: answers what was typed, even before it was ready, then exits 0", async () => {
    const child = spawnTurnstream(["demo"]);
    const done = finished(child);
    child.stdin.end("flight\n");
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/│ on it\n[\s\S]*│ your flight moved to 8pm\n[\s\S]*│ gate B12\n/);
  });

  it("turnstream demo < /dev/null exits 0 at once, having answered nothing", async () => {
    const child = spawnTurnstream(["demo"]);
    const done = finished(child);
    child.stdin.end();
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("◀ bubble");
  });

  it("keeps the terminal for the chat: the log goes to the file it names, no JSON line on stdout or stderr", async () => {
    const child = spawnTurnstream(["demo"]);
    const done = finished(child);
    child.stdin.end("broken\nhello\n");
    const result = await done;
    expect(result.code).toBe(0);
    const logLine = result.stdout.split("\n").find((line) => line.startsWith("log: "));
    expect(logLine).toMatch(/^log: \/.+turnstream-demo-\d+\.log$/);
    for (const line of [...result.stdout.split("\n"), ...result.stderr.split("\n")]) expect(line.startsWith("{")).toBe(false);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("│ you said: hello");
    // The structured turn that did not parse is in the log, not the chat.
    const log = readFileSync((logLine ?? "").slice("log: ".length), "utf8");
    expect(log).toContain("structured turn did not parse");
  });

  it("/cancel during slow cancels it: the cancel is acknowledged and nothing of the slow turn is delivered", async () => {
    const child = spawnTurnstream(["demo"]);
    const done = finished(child);
    child.stdin.write("slow\n");
    const logLine = await waitForLine(child, (line) => line.startsWith("log: "));
    // The turn is under way once its session exists (the prompt follows at once; "slow" thinks 2 s):
    // a fixed wait could send /cancel before the agent had even started on a loaded machine.
    const log = logLine.slice("log: ".length);
    const started = () => {
      try {
        return readFileSync(log, "utf8").includes('"msg":"session created"');
      } catch {
        return false;
      }
    };
    for (const deadline = Date.now() + 15_000; !started() && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
    child.stdin.end("/cancel\n");
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("│ 🛑 Cancel signal sent.");
    expect(result.stdout).not.toContain("this demo runs in structured mode");
  });
});
