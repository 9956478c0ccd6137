import { join } from "node:path";
import { bubbleScenarios } from "../../bubbletest/scenarios.js";
import { runScenario, type ScenarioResult } from "../../bubbletest/runScenario.js";
import { packageRoot } from "../../version.js";
import { parseCommandArgs } from "../commandArgs.js";
import { exitCodes } from "../exitCodes.js";
import { UsageError, type CliIo } from "../io.js";
import { bubbleTestUsage } from "../usage.js";

/** `turnstream bubble-test [scenario…]`: OpenAB's bubble-test table, offline; exit 1 on any FAIL. */
export async function bubbleTestCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs({ args: [...args], options: { help: { type: "boolean", short: "h" } }, allowPositionals: true });
  if (values.help) {
    io.stdout(`${bubbleTestUsage}\n`);
    return exitCodes.ok;
  }
  const unknown = positionals.filter((name) => !bubbleScenarios.some((s) => s.name === name));
  if (unknown.length > 0) {
    throw new UsageError(`unknown scenario ${unknown.map((n) => JSON.stringify(n)).join(", ")}; scenarios are ${bubbleScenarios.map((s) => s.name).join(", ")}`);
  }
  const chosen = positionals.length === 0 ? bubbleScenarios : bubbleScenarios.filter((s) => positionals.includes(s.name));
  const agent = join(packageRoot(), "fixtures", "agents", "scripted-agent.mjs");
  let failures = 0;
  for (const scenario of chosen) {
    const result = await runScenario(scenario, agent);
    if (result.problems.length > 0) failures += 1;
    io.stdout(report(result));
  }
  io.stdout(`${chosen.length - failures} passed, ${failures} failed\n`);
  return failures === 0 ? exitCodes.ok : exitCodes.failure;
}

function report({ scenario, delivered, gapsMs, turnFailed, problems }: ScenarioResult): string {
  const verdict = problems.length === 0 ? "PASS" : "FAIL";
  const what = delivered.length === 0 ? "nothing delivered" : `${delivered.length} message(s): ${delivered.map((text) => JSON.stringify(text)).join(" | ")}`;
  const gaps = gapsMs.length === 0 ? "" : `  gaps ${gapsMs.map((gap) => `${(gap / 1000).toFixed(2)}s`).join(" ")}`;
  const lines = [`${verdict}  ${scenario.name.padEnd(10)} [${scenario.delivery.mode ?? "text"}] ${what}${gaps}${turnFailed ? "  (turn failed)" : ""}`];
  for (const problem of problems) lines.push(`      ${problem}`);
  return `${lines.join("\n")}\n`;
}
