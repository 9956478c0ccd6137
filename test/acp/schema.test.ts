import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastValueFrom, toArray } from "rxjs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { AcpClient } from "../../src/acp/client.js";
import { agentConfig, scratch } from "../helpers/agents.js";
import { captureLogs } from "../helpers/logCapture.js";

// The official ACP v1 JSON Schema, as published with the SDK.
const schema = createRequire(import.meta.url)("@agentclientprotocol/sdk/schema/v1/schema.json") as Record<string, unknown>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
// The numeric formats the schema uses (Rust-generated), checked for real rather than ignored.
const integerIn = (min: number, max: number) => ({ type: "number" as const, validate: (n: number) => Number.isInteger(n) && n >= min && n <= max });
ajv.addFormat("int32", integerIn(-(2 ** 31), 2 ** 31 - 1));
ajv.addFormat("uint16", integerIn(0, 2 ** 16 - 1));
ajv.addFormat("uint32", integerIn(0, 2 ** 32 - 1));
ajv.addFormat("int64", integerIn(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
ajv.addFormat("uint64", integerIn(0, Number.MAX_SAFE_INTEGER));
ajv.addFormat("double", { type: "number", validate: (n: number) => Number.isFinite(n) });
ajv.addFormat("uri", { type: "string", validate: (s: string) => URL.canParse(s) });
ajv.addSchema({ ...schema, $id: "acp" });
const validator = (ref: string): ValidateFunction => {
  const validate = ajv.getSchema(`acp${ref}`);
  if (validate === undefined) throw new Error(`no schema at ${ref}`);
  return validate;
};
const clientMessage = validator("#/anyOf/1");
/** The params schema of each client → agent method turnstream sends. */
const paramsByMethod: Record<string, ValidateFunction> = {
  initialize: validator("#/$defs/InitializeRequest"),
  "session/new": validator("#/$defs/NewSessionRequest"),
  "session/load": validator("#/$defs/LoadSessionRequest"),
  "session/prompt": validator("#/$defs/PromptRequest"),
  "session/set_config_option": validator("#/$defs/SetSessionConfigOptionRequest"),
  "session/cancel": validator("#/$defs/CancelNotification"),
};
const permissionResponse = validator("#/$defs/RequestPermissionResponse");

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
      expect(clientMessage(frame), `${JSON.stringify(frame)}\n${ajv.errorsText(clientMessage.errors)}`).toBe(true);
      if (frame.method !== undefined) {
        const validate = paramsByMethod[frame.method];
        expect(validate?.(frame.params), `${frame.method}: ${ajv.errorsText(validate?.errors)}`).toBe(true);
      }
    }
  });

  it("each permission answer is a valid RequestPermissionResponse", () => {
    const answers = frames.filter((f) => typeof f.result === "object" && f.result !== null && "outcome" in f.result);
    expect(answers).toHaveLength(3);
    for (const answer of answers) expect(permissionResponse(answer.result), ajv.errorsText(permissionResponse.errors)).toBe(true);
  });
});
