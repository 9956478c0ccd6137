import { describe, expect, it } from "vitest";
import { agentSettingsFrom } from "../../src/agent/agentSettings.js";
import { AgentSettingsError } from "../../src/agent/errors.js";
import { builtInLookupTable } from "../../src/agent/lookupTool.js";

const required = { TURNSTREAM_AGENT_BASE_URL: "http://127.0.0.1:9/v1", TURNSTREAM_AGENT_MODEL: "m" };

function problems(env: NodeJS.ProcessEnv, flags = {}): readonly string[] {
  try {
    agentSettingsFrom(env, flags);
  } catch (err) {
    expect(err).toBeInstanceOf(AgentSettingsError);
    return (err as AgentSettingsError).problems;
  }
  throw new Error("expected AgentSettingsError");
}

describe("agentSettingsFrom", () => {
  it("parse_reads_turn_envelope: the mode, cap and schema come from the environment", () => {
    const settings = agentSettingsFrom({ ...required, TURNSTREAM_AGENT_MODE: "sequential", TURNSTREAM_AGENT_MAX_BUBBLES: "6", TURNSTREAM_AGENT_SCHEMA: "acme.turn.v1" });
    expect(settings).toMatchObject({ mode: "sequential", maxBubbles: 6, schema: "acme.turn.v1" });
  });

  it("defaults: envelope mode, 4 bubbles, 8 steps, 120 s, openab.turn.v1, NO_REPLY, the built-in lookup table, no key", () => {
    const settings = agentSettingsFrom(required);
    expect(settings).toMatchObject({ baseUrl: "http://127.0.0.1:9/v1", model: "m", mode: "envelope", maxBubbles: 4, maxBubbleChars: 1200, maxSteps: 8, timeoutMs: 120_000, schema: "openab.turn.v1", silentToken: "NO_REPLY" });
    expect(settings.lookupTable).toBe(builtInLookupTable);
    expect(settings).not.toHaveProperty("apiKey");
  });

  it("flags win over the environment; blank variables count as unset", () => {
    const settings = agentSettingsFrom(
      { ...required, TURNSTREAM_AGENT_MODE: "sequential", TURNSTREAM_AGENT_API_KEY: " ", TURNSTREAM_AGENT_MAX_STEPS: "" },
      { mode: "envelope", model: "flag-model", maxBubbles: "2", timeoutSecs: "5", systemPrompt: "be terse" },
    );
    expect(settings).toMatchObject({ mode: "envelope", model: "flag-model", maxBubbles: 2, maxSteps: 8, timeoutMs: 5_000, systemPrompt: "be terse" });
    expect(settings).not.toHaveProperty("apiKey");
    expect(agentSettingsFrom({ ...required, TURNSTREAM_AGENT_API_KEY: "sk-1" }).apiKey).toBe("sk-1");
  });

  it("a missing base URL or model is a problem naming the variable and the flag", () => {
    expect(problems({})).toEqual([
      "TURNSTREAM_AGENT_BASE_URL (or --base-url) is required: the OpenAI-compatible endpoint, e.g. https://api.openai.com/v1",
      "TURNSTREAM_AGENT_MODEL (or --model) is required: the model name the endpoint serves",
    ]);
  });

  it("collects every bad value", () => {
    expect(
      problems({
        TURNSTREAM_AGENT_BASE_URL: "ftp://x",
        TURNSTREAM_AGENT_MODEL: "m",
        TURNSTREAM_AGENT_MODE: "bubbles",
        TURNSTREAM_AGENT_MAX_BUBBLES: "0",
        TURNSTREAM_AGENT_MAX_STEPS: "2.5",
        TURNSTREAM_AGENT_TIMEOUT_SECS: "soon",
        TURNSTREAM_AGENT_LOOKUP: '{"flight": 3}',
      }),
    ).toEqual([
      'TURNSTREAM_AGENT_BASE_URL (or --base-url) must be an http(s) URL, got "ftp://x"',
      'TURNSTREAM_AGENT_MODE (or --mode) must be one of envelope, sequential, got "bubbles"',
      'TURNSTREAM_AGENT_MAX_BUBBLES (or --max-bubbles) must be a positive integer, got "0"',
      'TURNSTREAM_AGENT_MAX_STEPS (or --max-steps) must be a positive integer, got "2.5"',
      'TURNSTREAM_AGENT_TIMEOUT_SECS (or --timeout-secs) must be a positive integer, got "soon"',
      'TURNSTREAM_AGENT_LOOKUP must be a JSON object of topic → answer strings, e.g. {"flight":"moved to 8pm"}',
    ]);
    expect(problems({ ...required, TURNSTREAM_AGENT_BASE_URL: "not a url" })).toHaveLength(1);
  });

  it("max bubble chars may be 0 (no limit) but not negative", () => {
    expect(agentSettingsFrom({ ...required, TURNSTREAM_AGENT_MAX_BUBBLE_CHARS: "0" }).maxBubbleChars).toBe(0);
    expect(agentSettingsFrom(required, { maxBubbleChars: "500" }).maxBubbleChars).toBe(500);
    expect(problems({ ...required, TURNSTREAM_AGENT_MAX_BUBBLE_CHARS: "-1" })).toEqual([
      'TURNSTREAM_AGENT_MAX_BUBBLE_CHARS (or --max-bubble-chars) must be a whole number, 0 or more, got "-1"',
    ]);
  });

  it("TURNSTREAM_AGENT_ASK_TIMEOUT_SECS bounds an ask: 15 minutes by default, a positive whole number of seconds", () => {
    expect(agentSettingsFrom(required).askTimeoutMs).toBe(900_000);
    expect(agentSettingsFrom({ ...required, TURNSTREAM_AGENT_ASK_TIMEOUT_SECS: " 1200 " }).askTimeoutMs).toBe(1_200_000);
    expect(problems({ ...required, TURNSTREAM_AGENT_ASK_TIMEOUT_SECS: "0" })).toEqual(['TURNSTREAM_AGENT_ASK_TIMEOUT_SECS must be a positive integer, got "0"']);
  });

  it("TURNSTREAM_AGENT_LOOKUP replaces the built-in table", () => {
    expect(agentSettingsFrom({ ...required, TURNSTREAM_AGENT_LOOKUP: '{"gate":"B12"}' }).lookupTable).toEqual({ gate: "B12" });
  });
});
