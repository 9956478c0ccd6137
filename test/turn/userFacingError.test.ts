import { describe, expect, it } from "vitest";
import { AcpRequestError, AgentExitedError, AgentSpawnError, HardTimeoutError, PoolWaitTimeoutError } from "../../src/acp/errors.js";
import { userFacingError } from "../../src/turn/userFacingError.js";
import { BrokerFailureError, brokerFailurePhrases, brokerFailureText } from "../../src/failure/brokerFailure.js";
import { DeliveryIncompleteError } from "../../src/pipeline/errors.js";
import { SessionFileError } from "../../src/state/sessionFileError.js";

const enotdir = Object.assign(new Error("ENOTDIR: not a directory, open '/tmp/x/state/sessions.json'"), { code: "ENOTDIR", path: "/tmp/x/state/sessions.json" });

describe("userFacingError", () => {
  it.each([
    ["the agent's own JSON-RPC error", new AcpRequestError("session/prompt", -32000, "simulated agent failure"), "JSON-RPC error -32000: simulated agent failure"],
    ["OpenAB's agent-exit string", new AgentExitedError(), "Agent process exited unexpectedly"],
    ["OpenAB's hard-timeout string", new HardTimeoutError(30_000), "Agent exceeded hard timeout (30s)"],
    ["the busy-pool notice", new PoolWaitTimeoutError(2, 30_000), "every agent session stayed busy for 30s; please try again"],
    ["a delivery error built from those", new DeliveryIncompleteError("sequential turn failed after 2 bubble(s): JSON-RPC error -32000: simulated agent failure", 2), "sequential turn failed after 2 bubble(s): JSON-RPC error -32000: simulated agent failure"],
  ])("shows %s as it is", (_name, err, text) => {
    expect(userFacingError(err)).toBe(err);
    expect(userFacingError(err).message).toBe(text);
  });

  it("shows a spawn failure as its phrase and code, with the path only in its fields", () => {
    const err = new AgentSpawnError("/usr/bin/node", { configKey: "agent.working_dir", path: "/nope", errno: "ENOENT", problem: "does not exist" });
    expect(userFacingError(err).message).toBe("The agent could not be started (agent_unavailable)");
    expect(err).toMatchObject({ code: "agent_unavailable", configKey: "agent.working_dir", path: "/nope", errno: "ENOENT" });
  });

  it("shows a session-file failure as session_store_unavailable", () => {
    const err = new SessionFileError("get", "/tmp/x/state/sessions.json", enotdir);
    expect(userFacingError(err).message).toBe("Saved conversations could not be read or written (session_store_unavailable)");
    expect(err).toMatchObject({ configKey: "pool.state_dir", path: "/tmp/x/state/sessions.json", errno: "ENOTDIR", cause: enotdir });
  });

  it.each([
    ["a raw fs error", enotdir],
    ["a bug's TypeError", new TypeError("Cannot read properties of undefined (reading 'x')")],
    ["a thrown string", "/etc/secret ENOENT"],
  ])("turns %s into internal_error, keeping it as the cause", (_name, err) => {
    const shown = userFacingError(err);
    expect(shown).toBeInstanceOf(BrokerFailureError);
    expect(shown.message).toBe("Something went wrong on the server (internal_error)");
    expect(shown.cause).toBe(err);
  });

  it("every phrase is short and carries no path, errno or stack", () => {
    for (const code of Object.keys(brokerFailurePhrases) as (keyof typeof brokerFailurePhrases)[]) {
      const text = brokerFailureText(code);
      expect(text.length).toBeLessThan(80);
      expect(text).not.toMatch(/\/|\bE[A-Z]{3,}\b|\bat /);
      expect(text.endsWith(`(${code})`)).toBe(true);
    }
  });
});
