import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runTurnstream } from "../helpers/cli.js";

// Issue 36, defect 9, through the real CLI: a file with problems of every kind prints every one,
// one line each, exit 2 — `check-config` and `run` alike. And `[inbound] history_limit` above its
// bound is refused at start-up.

const dir = mkdtempSync(join(tmpdir(), "turnstream-all-problems-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = "x-36c9-secret";

const MANY = `
gatway = 1

[gateway]
url = "ws://127.0.0.1:1/ws"
token = "\${TURNSTREAM_TEST_UNSET_36}"
bot_usrname = "bot"
streaming = true

[delivery]
mode = "sequential"
reply_to_mode = "sometimes"
max_bubbles = "4"
human_delay = { min_ms = 3000, max_ms = 1000 }

[delivery.blocks]
enabled = true
min_chars = 2000
max_chars = 100

[inbound]
history_limit = 5000

[queue]
mode = "steer"

[bus]
token = 5
user = "u"
password = "${SECRET}"
`;

const EXPECTED = [
  "gateway.token: ${TURNSTREAM_TEST_UNSET_36} is not set in the environment",
  'gateway.bot_usrname: unknown key (did you mean "bot_username"?); allowed keys: ',
  'delivery.max_bubbles: expected an integer ≥ 1, got string "4"',
  'delivery.reply_to_mode: "sometimes" is not allowed; expected one of off, first, all',
  "bus.token: expected a string, got an integer (value hidden)",
  "inbound.history_limit: 5000 is not allowed; expected an integer from 0 to 1000",
  'queue.mode: "steer" is not supported: ACP cannot inject into a running turn; use collect, followup or interrupt',
  'gatway: unknown key (did you mean "gateway"?); allowed keys: ',
  'gateway.streaming: true edits one message in place as a text reply is written, and [delivery] mode = "sequential" sends bubbles: set streaming = false, or delivery.mode = "text"',
  'delivery.blocks.enabled: true sends a text reply as blocks, and [delivery] mode = "sequential" sends bubbles: set blocks.enabled = false, or delivery.mode = "text"',
  "delivery.blocks.min_chars: 2000 is more than delivery.blocks.max_chars (100): no block could be cut; lower min_chars or raise max_chars",
  "delivery.human_delay: waits from min_ms (3000) to max_ms (1000), and min_ms is more: set min_ms ≤ max_ms",
];

describe("every problem of a config file, one line each", () => {
  it("check-config and run print the same twelve lines and exit 2; no secret, no stack", async () => {
    const file = join(dir, "many.toml");
    writeFileSync(file, MANY);
    const env = { HOME: dir, TURNSTREAM_TEST_UNSET_36: undefined };
    const [checked, ran] = await Promise.all([runTurnstream(["check-config", file], { env }), runTurnstream(["run", "--config", file], { env })]);
    for (const result of [checked, ran]) {
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      const printed = result.stderr.split("\n").filter((line) => line !== "");
      expect(printed).toHaveLength(EXPECTED.length);
      printed.forEach((line, i) => expect(line.startsWith(`turnstream: ${file}: ${EXPECTED[i]}`), line).toBe(true));
      expect(result.stderr).not.toContain(SECRET);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(ran.stderr).toBe(checked.stderr);
  });

  it("history_limit above 1,000 is refused at start-up with one line; 1,000 is accepted", async () => {
    const over = join(dir, "history-over.toml");
    writeFileSync(over, `[gateway]\nurl = "ws://127.0.0.1:1/ws"\nbot_username = "bot"\n\n[inbound]\nhistory_limit = 1001\n`);
    const ran = await runTurnstream(["run", "--config", over], { env: { HOME: dir } });
    expect(ran).toMatchObject({ code: 2, stdout: "", stderr: `turnstream: ${over}: inbound.history_limit: 1001 is not allowed; expected an integer from 0 to 1000\n` });
    const bound = join(dir, "history-bound.toml");
    writeFileSync(bound, `[gateway]\nurl = "ws://127.0.0.1:1/ws"\nbot_username = "bot"\n\n[inbound]\nhistory_limit = 1000\n`);
    const checked = await runTurnstream(["check-config", bound]);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain("history_limit = 1000");
  });
});
