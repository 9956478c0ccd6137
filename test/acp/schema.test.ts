import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastValueFrom, toArray } from "rxjs";
import type { ValidateFunction } from "ajv/dist/2020.js";
import { AcpClient } from "../../src/acp/client.js";
import { agentConfig, scratch } from "../helpers/agents.js";
import { acpSchema, schemaErrors } from "../helpers/acpSchema.js";
import { captureLogs } from "../helpers/logCapture.js";

const clientMessage = acpSchema("#/anyOf/1");
/** The params schema of each client → agent method turnstream sends. */
const paramsByMethod: Record<string, ValidateFunction> = {
  initialize: acpSchema("#/$defs/InitializeRequest"),
  "session/new": acpSchema("#/$defs/NewSessionRequest"),
  "session/load": acpSchema("#/$defs/LoadSessionRequest"),
  "session/prompt": acpSchema("#/$defs/PromptRequest"),
  "session/set_config_option": acpSchema("#/$defs/SetSessionConfigOptionRequest"),
  "session/cancel": acpSchema("#/$defs/CancelNotification"),
};
const permissionResponse = acpSchema("#/$defs/RequestPermissionResponse");

interface Frame {
  jsonrpc: string;
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

describe("every frame the client sends validates against the official ACP v1 JSON Schema", () => {
  const dir = scratch();
  const stdinLog = join(dir.dir, "stdin.log");
  let frames: Frame[] = [];

  beforeAll(async () => {
    const { logger } = captureLogs();
    const client = await AcpClient.start({
      agent: agentConfig({ AGENT_STDIN_LOG: stdinLog, LOAD_SESSION: "1" }),
      env: process.env,
      logger,
    });
    const options = { hardTimeoutMs: 20_000, hungGraceMs: 2_000, livenessMs: 1_000 };
    try {
      const { sessionId } = await client.newSession(tmpdir());
      await client.setConfigOption(sessionId, "model", "smart");
      for (const text of ["envelope", "permission allow_once,reject_once", "permission reject_once", "permission none", "fsread", "terminal"]) {
        await lastValueFrom(client.prompt(sessionId, [{ type: "text", text }], options).pipe(toArray()));
      }
      await lastValueFrom(
        client.prompt(sessionId, [{ type: "text", text: "look" }, { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" }], options).pipe(toArray()),
      );
      const subscription = client.prompt(sessionId, [{ type: "text", text: "slow 2000" }], options).subscribe();
      await new Promise((resolve) => setTimeout(resolve, 100));
      subscription.unsubscribe(); // sends session/cancel
      await client.loadSession(sessionId, tmpdir());
    } finally {
      await client.close();
    }
    frames = readFileSync(stdinLog, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Frame);
  });
  afterAll(() => dir.cleanup());

  it("exercised every method and answer kind", () => {
    const methods = new Set(frames.map((f) => f.method).filter((m) => m !== undefined));
    expect([...methods].sort()).toEqual(Object.keys(paramsByMethod).sort());
    expect(frames.some((f) => f.result !== undefined)).toBe(true);
    expect(frames.some((f) => f.error !== undefined)).toBe(true);
  });

  it("each frame is a valid client message, with valid params for its method", () => {
    for (const frame of frames) {
      expect(clientMessage(frame), `${JSON.stringify(frame)}\n${schemaErrors(clientMessage)}`).toBe(true);
      if (frame.method !== undefined) {
        const validate = paramsByMethod[frame.method];
        expect(validate?.(frame.params), `${frame.method}: ${schemaErrors(validate)}`).toBe(true);
      }
    }
  });

  it("each permission answer is a valid RequestPermissionResponse", () => {
    const answers = frames.filter((f) => typeof f.result === "object" && f.result !== null && "outcome" in f.result);
    expect(answers).toHaveLength(3);
    for (const answer of answers) expect(permissionResponse(answer.result), schemaErrors(permissionResponse)).toBe(true);
  });
});
