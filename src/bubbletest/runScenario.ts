import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBroker } from "../broker/createBroker.js";
import { DevGateway, devEvent } from "../devgateway/devGateway.js";
import { createLogger } from "../log/logger.js";
import type { BubbleScenario } from "./scenarios.js";

export interface ScenarioResult {
  readonly scenario: BubbleScenario;
  readonly delivered: readonly string[];
  /** Milliseconds between consecutive messages' arrival at the gateway. */
  readonly gapsMs: readonly number[];
  readonly turnFailed: boolean;
  readonly problems: readonly string[];
}

/**
 * Runs one scenario offline: a dev gateway, a broker on the embedded bus, and the scripted agent
 * as its ACP agent; sends the scenario's name as the user's message and records what arrives.
 */
export async function runScenario(scenario: BubbleScenario, agentScript: string, timeoutMs = 20_000): Promise<ScenarioResult> {
  const stateDir = mkdtempSync(join(tmpdir(), "turnstream-bubble-test-"));
  const gateway = await DevGateway.start();
  const delivered: string[] = [];
  const arrivals: number[] = [];
  gateway.received.subscribe((frame) => {
    if (frame.kind !== "reply") return;
    delivered.push(frame.frame.content.text);
    arrivals.push(performance.now());
  });
  let ended: "complete" | "failed" | undefined;
  // The broker's logs are for operators; the runner learns that the turn ended from the data.
  const logger = createLogger({ level: "silent" });
  const broker = createBroker({
    logger,
    config: {
      gateway: { url: gateway.url, token: gateway.token, allow_all_users: true, allow_all_channels: true },
      agent: { command: process.execPath, args: [agentScript], env: { SEQSLOW_MS: "2000", ...scenario.agentEnv } },
      pool: { state_dir: stateDir },
      delivery: scenario.delivery,
      reactions: { enabled: false },
    },
  });
  const settled = broker.settledTurns.subscribe((turn) => (ended = turn.ok ? "complete" : "failed"));
  try {
    await broker.start();
    await until(() => gateway.brokerCount > 0, timeoutMs);
    gateway.broadcast(devEvent(scenario.name));
    await until(() => ended !== undefined, timeoutMs);
    await new Promise((resolve) => setTimeout(resolve, 300)); // anything late would show up now
  } finally {
    await broker.stop({ graceMs: 2_000 });
    settled.unsubscribe();
    await gateway.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
  const gapsMs = arrivals.slice(1).map((at, i) => at - (arrivals[i] ?? at));
  return { scenario, delivered, gapsMs, turnFailed: ended === "failed", problems: check(scenario, delivered, gapsMs, ended) };
}

function check(scenario: BubbleScenario, delivered: readonly string[], gapsMs: readonly number[], ended: string | undefined): string[] {
  const problems: string[] = [];
  if (ended === undefined) problems.push("the turn did not end in time");
  if (JSON.stringify(delivered) !== JSON.stringify(scenario.expected)) {
    problems.push(`expected ${JSON.stringify(scenario.expected)}, got ${JSON.stringify(delivered)}`);
  }
  if (scenario.minGapMs !== undefined) {
    for (const gap of gapsMs) if (gap < scenario.minGapMs) problems.push(`a gap of ${Math.round(gap)} ms is under ${scenario.minGapMs} ms`);
  }
  if ((scenario.turnFails ?? false) !== (ended === "failed")) problems.push(scenario.turnFails ? "the turn should have failed" : "the turn failed");
  return problems;
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}
