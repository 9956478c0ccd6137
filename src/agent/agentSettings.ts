import { AgentSettingsError } from "./errors.js";
import { builtInLookupTable, type LookupTable } from "./lookupTool.js";
import { TURN_ENVELOPE_SCHEMA } from "./renderEnvelope.js";
import { replyModes, type ReplyMode } from "./replyTool.js";

/** Everything `turnstream agent` runs with. */
export interface AgentSettings {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string;
  readonly mode: ReplyMode;
  readonly maxBubbles: number;
  /** Envelope mode: characters per message; 0: no limit. */
  readonly maxBubbleChars: number;
  readonly maxSteps: number;
  readonly timeoutMs: number;
  readonly systemPrompt: string;
  readonly schema: string;
  readonly silentToken: string;
  readonly lookupTable: LookupTable;
  /**
   * The longest one `ask` call waits for the chat's answers (default 15 minutes); keep it above
   * the broker's `[agent] ask_timeout_secs`, which answers the call unanswered when it passes.
   */
  readonly askTimeoutMs?: number;
}

/** Command-line values; each wins over its environment variable. */
export interface AgentFlags {
  readonly baseUrl?: string;
  readonly model?: string;
  readonly mode?: string;
  readonly maxBubbles?: string;
  readonly maxBubbleChars?: string;
  readonly maxSteps?: string;
  readonly timeoutSecs?: string;
  readonly systemPrompt?: string;
}

/** The environment variables `turnstream agent` reads (docs/agents.md lists them). */
export const agentEnv = {
  baseUrl: "TURNSTREAM_AGENT_BASE_URL",
  model: "TURNSTREAM_AGENT_MODEL",
  apiKey: "TURNSTREAM_AGENT_API_KEY",
  mode: "TURNSTREAM_AGENT_MODE",
  maxBubbles: "TURNSTREAM_AGENT_MAX_BUBBLES",
  maxBubbleChars: "TURNSTREAM_AGENT_MAX_BUBBLE_CHARS",
  maxSteps: "TURNSTREAM_AGENT_MAX_STEPS",
  timeoutSecs: "TURNSTREAM_AGENT_TIMEOUT_SECS",
  systemPrompt: "TURNSTREAM_AGENT_SYSTEM_PROMPT",
  schema: "TURNSTREAM_AGENT_SCHEMA",
  silentToken: "TURNSTREAM_AGENT_SILENT_TOKEN",
  lookup: "TURNSTREAM_AGENT_LOOKUP",
  askTimeoutSecs: "TURNSTREAM_AGENT_ASK_TIMEOUT_SECS",
} as const;

export const agentDefaults = {
  mode: "envelope",
  maxBubbles: 4,
  // The broker's `[delivery] max_bubble_chars` default.
  maxBubbleChars: 1200,
  maxSteps: 8,
  timeoutSecs: 120,
  systemPrompt: "You are a helpful assistant talking with people in a chat app. Be brief and friendly.",
  silentToken: "NO_REPLY",
  // Above the broker's default `ask_timeout_secs` (600): the broker's own timeout answers first.
  askTimeoutSecs: 900,
} as const;

/**
 * Resolves the settings from flags, then the environment (a blank variable counts as unset), then
 * defaults. Every problem is collected; any throws `AgentSettingsError` with one line each.
 */
export function agentSettingsFrom(env: NodeJS.ProcessEnv, flags: AgentFlags = {}): AgentSettings {
  const problems: string[] = [];
  const read = (key: keyof AgentFlags & keyof typeof agentEnv): string | undefined => flags[key] ?? nonBlank(env[agentEnv[key]]);
  const flag = (key: string): string => `${agentEnv[key as keyof typeof agentEnv]} (or --${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)})`;

  const baseUrl = read("baseUrl");
  if (baseUrl === undefined) problems.push(`${flag("baseUrl")} is required: the OpenAI-compatible endpoint, e.g. https://api.openai.com/v1`);
  else if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) problems.push(`${flag("baseUrl")} must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  const model = read("model");
  if (model === undefined) problems.push(`${flag("model")} is required: the model name the endpoint serves`);

  const mode = read("mode") ?? agentDefaults.mode;
  if (!(replyModes as readonly string[]).includes(mode)) problems.push(`${flag("mode")} must be one of ${replyModes.join(", ")}, got ${JSON.stringify(mode)}`);
  const integer = (key: "maxBubbles" | "maxBubbleChars" | "maxSteps" | "timeoutSecs", fallback: number, min = 1): number => {
    const raw = read(key);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (Number.isInteger(value) && value >= min) return value;
    problems.push(`${flag(key)} must be ${min === 0 ? "a whole number, 0 or more" : "a positive integer"}, got ${JSON.stringify(raw)}`);
    return fallback;
  };
  const positive = (key: "maxBubbles" | "maxSteps" | "timeoutSecs", fallback: number): number => integer(key, fallback);
  const maxBubbles = positive("maxBubbles", agentDefaults.maxBubbles);
  const maxBubbleChars = integer("maxBubbleChars", agentDefaults.maxBubbleChars, 0);
  const maxSteps = positive("maxSteps", agentDefaults.maxSteps);
  const timeoutSecs = positive("timeoutSecs", agentDefaults.timeoutSecs);
  const lookupTable = lookupTableFrom(env[agentEnv.lookup], problems);
  const askTimeoutSecs = askTimeoutFrom(env[agentEnv.askTimeoutSecs], problems);

  if (problems.length > 0 || baseUrl === undefined || model === undefined) throw new AgentSettingsError(problems);
  const apiKey = nonBlank(env[agentEnv.apiKey]);
  return {
    baseUrl,
    model,
    ...(apiKey === undefined ? {} : { apiKey }),
    mode: mode as ReplyMode,
    maxBubbles,
    maxBubbleChars,
    maxSteps,
    timeoutMs: timeoutSecs * 1000,
    systemPrompt: read("systemPrompt") ?? agentDefaults.systemPrompt,
    schema: nonBlank(env[agentEnv.schema]) ?? TURN_ENVELOPE_SCHEMA,
    silentToken: nonBlank(env[agentEnv.silentToken]) ?? agentDefaults.silentToken,
    lookupTable,
    askTimeoutMs: askTimeoutSecs * 1000,
  };
}

/** `TURNSTREAM_AGENT_ASK_TIMEOUT_SECS`: a positive whole number of seconds (there is no flag). */
function askTimeoutFrom(raw: string | undefined, problems: string[]): number {
  const value = nonBlank(raw);
  if (value === undefined) return agentDefaults.askTimeoutSecs;
  const secs = Number(value);
  if (Number.isInteger(secs) && secs >= 1) return secs;
  problems.push(`${agentEnv.askTimeoutSecs} must be a positive integer, got ${JSON.stringify(value)}`);
  return agentDefaults.askTimeoutSecs;
}

/** `TURNSTREAM_AGENT_LOOKUP`: a JSON object of topic → answer strings, replacing the built-in table. */
function lookupTableFrom(raw: string | undefined, problems: string[]): LookupTable {
  const value = nonBlank(raw);
  if (value === undefined) return builtInLookupTable;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  const entries = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? Object.entries(parsed) : [];
  if (entries.length === 0 || entries.some(([, answer]) => typeof answer !== "string")) {
    problems.push(`${agentEnv.lookup} must be a JSON object of topic → answer strings, e.g. {"flight":"moved to 8pm"}`);
    return builtInLookupTable;
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

function nonBlank(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
