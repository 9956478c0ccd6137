import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runTurnstream } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "turnstream-cross-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = "x-9c0e-secret";

// Every refusal that spans keys, as `run` makes it. Each file is otherwise startable: nothing but
// the cross-key check stands between it and a running broker.
const refusals: readonly (readonly [string, string, string])[] = [
  ["gateway token twice", `[gateway]\nurl = "ws://127.0.0.1:1/ws?token=${SECRET}"\ntoken = "${SECRET}"\n`, "gateway: the gateway token is given twice (gateway.token and ?token= in gateway.url): keep one of them"],
  ["bus token and user/password", `[bus]\nurl = "nats://127.0.0.1:1"\ntoken = "${SECRET}"\nuser = "u"\npassword = "${SECRET}"\n`, "bus: NATS credentials are given twice (bus.token and bus.user/bus.password): keep one of them"],
  ["bus token and URL user info", `[bus]\nurl = "nats://u:${SECRET}@127.0.0.1:1"\ntoken = "${SECRET}"\n`, "bus: NATS credentials are given twice (bus.token and user info in bus.url): keep one of them"],
  ["bus creds and URL token", `[bus]\nurl = "nats://${SECRET}@127.0.0.1:1"\ncreds = "/nonexistent/user.creds"\n`, "bus: NATS credentials are given twice (bus.creds and user info in bus.url): keep one of them"],
  ["bus user/password and creds", `[bus]\nurl = "nats://127.0.0.1:1"\nuser = "u"\npassword = "${SECRET}"\ncreds = "/nonexistent/user.creds"\n`, "bus: NATS credentials are given twice (bus.user/bus.password and bus.creds): keep one of them"],
  ["bus user without password", `[bus]\nurl = "nats://127.0.0.1:1"\nuser = "u"\n`, "bus: bus.user and bus.password go together: set both or neither"],
  ["bus password without user", `[bus]\nurl = "nats://127.0.0.1:1"\npassword = "${SECRET}"\n`, "bus: bus.user and bus.password go together: set both or neither"],
];

describe("check-config refuses every file run refuses for a cross-key reason, with the same line and exit code", () => {
  it.each(refusals)("%s", async (name, toml, line) => {
    const file = join(dir, `${name.replace(/\W+/g, "-")}.toml`);
    writeFileSync(file, toml);
    const [checked, ran] = await Promise.all([
      runTurnstream(["check-config", file]),
      runTurnstream(["run", "--config", file], { env: { HOME: dir } }),
    ]);
    const expected = `turnstream: ${file}: ${line}\n`;
    expect(ran).toMatchObject({ code: 2, stdout: "", stderr: expected });
    expect(checked).toMatchObject({ code: 2, stdout: "", stderr: expected });
    for (const output of [ran.stdout, ran.stderr, checked.stdout, checked.stderr]) expect(output).not.toContain(SECRET);
  });
});
