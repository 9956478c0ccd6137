import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrokerMetrics } from "../../src/metrics/brokerMetrics.js";
import { promtoolAvailable, promtoolBinary } from "../helpers/prometheus.js";
import { expectLinksResolve } from "../helpers/docPages.js";

// docs/operations.md against the code: every metric with its type, labels, roles and buckets, the
// Prometheus config and rules through promtool (the alerts' PromQL evaluated on made-up series),
// and every log line it cites against docs/logging.md.

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const doc = read("docs/operations.md");
const logging = read("docs/logging.md");

type Role = "all" | "edge" | "worker";

type Mode = "text" | "structured" | "sequential";

function exposition(role: Role, mode: Mode = "text"): Promise<string> {
  // An edge-holding process (all, edge) with its gateway and [telegram]: their gauges exist only then.
  return new BrokerMetrics({ role, mode, partitions: 16, version: "x", processMetrics: false, gateway: role !== "worker", platforms: ["telegram"] }).metrics();
}

/** `# TYPE name type` lines: each metric family and its type. */
function families(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((match) => [match[1] as string, match[2] as string]));
}

/** The reference table's row of a metric: `| `name` | type | labels | roles | moves when |`. */
function referenceRow(name: string): string[] | undefined {
  const line = doc.split("\n").find((row) => row.startsWith(`| \`${name}\` | `) && row.split(" | ").length >= 5);
  return line?.split(" | ").map((cell) => cell.replace(/^\| |\s*\|$/g, "").trim());
}

/** The body of the ```yaml block right after `<!-- marker -->`. */
function markedBlock(marker: string): string {
  const match = new RegExp(`<!-- ${marker} -->\\n\`\`\`yaml\\n([\\s\\S]*?)\`\`\``).exec(doc);
  if (match === null) throw new Error(`docs/operations.md has no \`\`\`yaml block after <!-- ${marker} -->`);
  return match[1] as string;
}

/** The rows of the table under `heading`, as cells. */
function tableUnder(heading: string): string[][] {
  const start = doc.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/operations.md has no heading ${heading}`);
  const rest = doc.slice(start + heading.length + 2);
  const end = rest.search(/\n#{1,3} /);
  return (end < 0 ? rest : rest.slice(0, end))
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("|---"))
    .slice(1) // the header
    .map((line) => line.split(" | ").map((cell) => cell.replace(/^\| |\s*\|$/g, "").trim()));
}

describe("docs/operations.md: the metrics reference", async () => {
  const text = await exposition("all");
  const all = families(text);
  const byRole = new Map<Role, Map<string, string>>([
    ["all", all],
    ["edge", families(await exposition("edge"))],
    ["worker", families(await exposition("worker"))],
  ]);

  it("the broker registers metrics at all", () => {
    expect(all.size).toBeGreaterThan(10);
  });

  for (const [name, type] of all) {
    it(`lists ${name} as a ${type}, with the roles that expose it`, () => {
      const row = referenceRow(name);
      expect(row, `no reference row for ${name}`).toBeDefined();
      expect(row?.[1]).toBe(type);
      const roles = (["all", "edge", "worker"] as const).filter((role) => byRole.get(role)?.has(name));
      expect(row?.[3]).toBe(roles.join(", "));
    });
  }

  // Every delivery mode, for the `mode` label's values.
  const everyMode = [text, await exposition("all", "structured"), await exposition("all", "sequential")].join("\n");

  it("lists every label and every value each label takes", () => {
    for (const match of everyMode.matchAll(/^([a-z_:]+)\{([^}]*)\} \S+$/gm)) {
      const sample = match[1] as string;
      const family = [...all.keys()].find((name) => sample === name || (all.get(name) === "histogram" && /^_(bucket|sum|count)$/.test(sample.slice(name.length)) && sample.startsWith(name)));
      const row = referenceRow(family ?? sample)?.[2] ?? "";
      for (const [, label, value] of (match[2] as string).matchAll(/(\w+)="([^"]*)"/g)) {
        if (label === "le") continue; // the buckets, below
        expect(row, `${family} label ${label}`).toContain(`\`${label}\``);
        if (label !== "version") expect(row, `${family}{${label}="${value}"}`).toContain(`\`${value}\``);
      }
    }
  });

  it("gives every histogram's bucket bounds", () => {
    for (const [name, type] of all) {
      if (type !== "histogram") continue;
      const bounds = [...new Set([...text.matchAll(new RegExp(`^${name}_bucket\\{(?:[^}]*,)?le="([^"]+)"`, "gm"))].map((m) => m[1] as string))].filter((le) => le !== "+Inf");
      expect(bounds.length).toBeGreaterThan(0);
      expect(doc).toContain(`| \`${name}\` | ${bounds.join(", ")} |`);
    }
  });

  it("names no turnstream_ metric that does not exist", () => {
    // JetStream's names for the turn stream and its partition consumers, with the default prefix: not metrics.
    const streamNames = /^turnstream_(turns|p\d*)$/;
    const mentioned = new Set([...doc.matchAll(/\bturnstream_[a-z0-9_]+/g)].map((m) => m[0]));
    expect(mentioned.size).toBeGreaterThan(10);
    for (const name of mentioned) {
      if (streamNames.test(name)) continue;
      const base = name.replace(/_(bucket|sum|count)$/, "");
      const known = all.has(name) || (base !== name && all.get(base) === "histogram");
      expect(known, `${name} is not a metric the broker registers`).toBe(true);
    }
  });

  it("shows the Kubernetes probes on the two endpoints", () => {
    const stanza = markedBlock("kubernetes");
    expect(stanza).toMatch(/livenessProbe:\s+httpGet:\s+path: \/healthz/);
    expect(stanza).toMatch(/readinessProbe:\s+httpGet:\s+path: \/readyz/);
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as `-`. */

describe("docs/operations.md: its links", () => {
  it("is linked from the README, docs/scaling.md, docs/config-reference.md and docs/logging.md", () => {
    expect(read("README.md")).toContain("(docs/operations.md)");
    for (const path of ["docs/scaling.md", "docs/config-reference.md", "docs/logging.md"]) expect(read(path), path).toContain("(operations.md)");
  });

  it("links only to files and headings that exist", () => {
    expectLinksResolve(doc, 3);
  });
});

describe("docs/operations.md: the log lines it cites", () => {
  const rows = tableUnder("## What each log line means and which metric it feeds");

  it("has its table", () => {
    expect(rows.length).toBeGreaterThan(20);
  });

  for (const row of rows) {
    for (const [, msg] of (row[0] as string).matchAll(/`([^`]+)`/g)) {
      it(`\`${msg}\` is a line of docs/logging.md`, () => {
        expect(logging).toContain(`| \`${msg}\` |`);
      });
    }
  }
});

/**
 * Each alert's expression on made-up series: the series it must fire on (with the labels it must
 * keep) and series it must stay quiet on. Evaluated as `(expr) * 0 + 1`, so only the label sets
 * are compared, not floating-point values.
 */
interface Scenario {
  readonly series: Record<string, string>;
  /** Expected label sets, as promtool spells them; empty: quiet. */
  readonly fires: readonly string[];
}

const job = 'job="turnstream"';
const scenarios: Record<string, readonly Scenario[]> = {
  TurnstreamPartitionsUnowned: [
    {
      series: {
        [`turnstream_partitions{${job},instance="edge-a:9464"}`]: "16x20",
        [`turnstream_partitions{${job},instance="worker-1:9464"}`]: "16x20",
        [`turnstream_partitions_owned{${job},instance="worker-1:9464"}`]: "8x20",
      },
      fires: [`{${job}}`],
    },
    {
      series: {
        [`turnstream_partitions{${job},instance="edge-a:9464"}`]: "16x20",
        [`turnstream_partitions{${job},instance="worker-1:9464"}`]: "16x20",
        [`turnstream_partitions{${job},instance="worker-2:9464"}`]: "16x20",
        [`turnstream_partitions_owned{${job},instance="worker-1:9464"}`]: "8x20",
        [`turnstream_partitions_owned{${job},instance="worker-2:9464"}`]: "8x20",
      },
      fires: [],
    },
  ],
  TurnstreamNoWorkers: [
    { series: { [`turnstream_partitions{${job},instance="edge-a:9464"}`]: "16x20" }, fires: [`{${job}}`] },
    {
      series: {
        [`turnstream_partitions{${job},instance="edge-a:9464"}`]: "16x20",
        [`turnstream_partitions{${job},instance="worker-1:9464"}`]: "16x20",
        [`turnstream_partitions_owned{${job},instance="worker-1:9464"}`]: "16x20",
      },
      fires: [],
    },
  ],
  TurnstreamGatewayDisconnected: [
    {
      series: {
        [`turnstream_gateway_connected{${job},instance="edge-a:9464"}`]: "0x20",
        [`turnstream_gateway_connected{${job},instance="edge-b:9464"}`]: "1x20",
      },
      fires: [`{instance="edge-a:9464",${job}}`],
    },
  ],
  TurnstreamNoGateway: [
    {
      series: {
        [`turnstream_gateway_connected{${job},instance="edge-a:9464"}`]: "0x20",
        [`turnstream_gateway_connected{${job},instance="edge-b:9464"}`]: "0x20",
      },
      fires: [`{${job}}`],
    },
    {
      series: {
        [`turnstream_gateway_connected{${job},instance="edge-a:9464"}`]: "0x20",
        [`turnstream_gateway_connected{${job},instance="edge-b:9464"}`]: "1x20",
      },
      fires: [],
    },
  ],
  TurnstreamPlatformDisconnected: [
    {
      series: {
        [`turnstream_platform_connected{${job},instance="edge-a:9464",platform="telegram"}`]: "0x20",
        [`turnstream_platform_connected{${job},instance="edge-b:9464",platform="telegram"}`]: "0x20",
      },
      fires: [`{${job},platform="telegram"}`],
    },
    // One edge polls the bot, the other stands by: quiet.
    {
      series: {
        [`turnstream_platform_connected{${job},instance="edge-a:9464",platform="telegram"}`]: "1x20",
        [`turnstream_platform_connected{${job},instance="edge-b:9464",platform="telegram"}`]: "0x20",
      },
      fires: [],
    },
  ],
  TurnstreamTurnsFailing: [
    {
      series: {
        [`turnstream_turns_total{${job},instance="worker-1:9464",mode="text",outcome="completed"}`]: "0+3x20",
        [`turnstream_turns_total{${job},instance="worker-1:9464",mode="text",outcome="agent_error"}`]: "0x20",
        [`turnstream_turns_total{${job},instance="worker-2:9464",mode="text",outcome="failed"}`]: "0+1x20",
      },
      fires: [`{${job}}`],
    },
    {
      series: {
        [`turnstream_turns_total{${job},instance="worker-1:9464",mode="text",outcome="completed"}`]: "0+100x20",
        [`turnstream_turns_total{${job},instance="worker-1:9464",mode="text",outcome="failed"}`]: "0+1x20",
      },
      fires: [],
    },
    // No turns at all: NaN, quiet.
    { series: { [`turnstream_turns_total{${job},instance="worker-1:9464",mode="text",outcome="failed"}`]: "0x20" }, fires: [] },
  ],
  TurnstreamAckLatencyHigh: [
    { series: ackBuckets({ "0.01": "0x20", "2.5": "0x20", "5": "0+10x20", "+Inf": "0+10x20" }), fires: [`{${job}}`] },
    { series: ackBuckets({ "0.01": "0+10x20", "2.5": "0+10x20", "5": "0+10x20", "+Inf": "0+10x20" }), fires: [] },
  ],
};

function ackBuckets(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([le, v]) => [`turnstream_ack_latency_seconds_bucket{${job},instance="worker-1:9464",le="${le}"}`, v]));
}

/**
 * `alert` → `expr` of the rules block. The rules are written as the doc writes them: `- alert:`
 * then `expr:` inline or as a `|` block, more indented than the key.
 */
function alertExpressions(rules: string): Map<string, string> {
  const lines = rules.split("\n");
  const found = new Map<string, string>();
  for (let i = 0; i < lines.length; i++) {
    const alert = /^\s*- alert: (\S+)$/.exec(lines[i] as string);
    if (alert === null) continue;
    const at = lines.findIndex((line, j) => j > i && /^\s+expr:/.test(line));
    const key = /^(\s+)expr:\s*(.*)$/.exec(lines[at] ?? "");
    if (key === null) throw new Error(`alert ${alert[1]} has no expr`);
    const [, indent, inline] = key as unknown as [string, string, string];
    if (!/^[|>][-+]?$/.test(inline)) {
      found.set(alert[1] as string, inline);
      continue;
    }
    const body: string[] = [];
    for (let j = at + 1; j < lines.length; j++) {
      const line = lines[j] as string;
      if (line.trim() !== "" && line.length - line.trimStart().length <= indent.length) break;
      body.push(line.trim());
    }
    found.set(alert[1] as string, body.join(" ").trim());
  }
  return found;
}

describe.skipIf(!promtoolAvailable())("docs/operations.md: the Prometheus files, through promtool", () => {
  let dir = "";
  const promtool = (...args: string[]) => {
    try {
      return { ok: true, output: execFileSync(promtoolBinary, args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }) };
    } catch (err) {
      const failed = err as { stdout?: string; stderr?: string };
      return { ok: false, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
    }
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "turnstream-operations-doc-"));
    // Side by side: the config names the rules file by its relative name.
    writeFileSync(join(dir, "prometheus.yml"), markedBlock("prometheus.yml"));
    writeFileSync(join(dir, "turnstream.rules.yml"), markedBlock("turnstream.rules.yml"));
  });
  afterAll(() => {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it("the scrape config (and the rules it loads) pass `promtool check config`", () => {
    const result = promtool("check", "config", "prometheus.yml");
    expect(result.ok, result.output).toBe(true);
    expect(result.output).toContain("SUCCESS");
  });

  it("the rules pass `promtool check rules`", () => {
    const result = promtool("check", "rules", "turnstream.rules.yml");
    expect(result.ok, result.output).toBe(true);
    expect(result.output).toMatch(/SUCCESS: \d+ rules found/);
  });

  it("each tested alert fires on the series it is for, and only there (`promtool test rules`)", () => {
    const expressions = alertExpressions(markedBlock("turnstream.rules.yml"));
    expect(expressions.size).toBeGreaterThan(5);
    const q = (s: string) => JSON.stringify(s); // a JSON string is a YAML double-quoted scalar
    const tests: string[] = [];
    for (const [alert, cases] of Object.entries(scenarios)) {
      const expr = expressions.get(alert);
      expect(expr, `the rules have no alert ${alert}`).toBeDefined();
      for (const scenario of cases) {
        tests.push(
          "  - interval: 1m",
          "    input_series:",
          ...Object.entries(scenario.series).flatMap(([series, values]) => [`      - series: ${q(series)}`, `        values: ${q(values)}`]),
          "    promql_expr_test:",
          `      - expr: ${q(`(${expr}) * 0 + 1`)}`,
          "        eval_time: 15m",
          scenario.fires.length === 0 ? "        exp_samples: []" : "        exp_samples:",
          ...scenario.fires.flatMap((labels) => [`          - labels: ${q(labels)}`, "            value: 1"]),
        );
      }
    }
    writeFileSync(join(dir, "alerts.test.yml"), ["evaluation_interval: 1m", "tests:", ...tests, ""].join("\n"));
    const result = promtool("test", "rules", "alerts.test.yml");
    expect(result.ok, result.output).toBe(true);
    expect(result.output).toContain("SUCCESS");
  });
});
