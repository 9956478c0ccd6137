import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { AcpClient } from "../../src/acp/client.js";
import { AcpProtocolError } from "../../src/acp/errors.js";
import { agentConfig } from "../helpers/agents.js";
import { captureLogs } from "../helpers/logCapture.js";

// Issue 17, hole 5: a real agent process that names itself and its sessions with hostile text.
const hostileAgent = fileURLToPath(new URL("../../fixtures/agents/hostile-ids-agent.mjs", import.meta.url));
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

let client: AcpClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

describe("ids and names an agent chooses", () => {
  it("its name is logged bounded and clean; a session id that is not plain text is refused", async () => {
    const { logger, records } = captureLogs();
    client = await AcpClient.start({ agent: agentConfig({}, hostileAgent), env: process.env, logger });
    expect(client.agentName.length).toBeLessThanOrEqual(100);
    expect(client.agentName.startsWith("agent evil xxx")).toBe(true);
    expect(CONTROL.test(client.agentName)).toBe(false);
    const refused = await client.newSession(tmpdir()).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AcpProtocolError);
    expect((refused as Error).message).toBe("agent answered session/new with no usable sessionId");
    const initialized = records.find((r) => r.msg === "agent initialized");
    expect(initialized?.agent).toBe(client.agentName);
    for (const record of records) expect(JSON.stringify(record).length, record.msg).toBeLessThan(2_048);
  });
});
