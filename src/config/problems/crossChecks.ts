import { hasUnresolvedModelVariable, prefixProblem, prefixRoom, resolveResponsePrefix } from "../../../operators/delivery/text/responsePrefix.js";
import type { ConfigProblem } from "../errors.js";
import { DEFAULT_PROCESSING, type Processing, processingProblems } from "../processing.js";
import { urlHasToken } from "../secrets/redactUrl.js";
import type { Config } from "../schema.js";
import { cronJobProblems } from "./cronChecks.js";
import { telegramListenProblems, telegramModeProblems } from "./telegramChecks.js";
import { webhookListenProblems, webhookPlatformProblems, webhookUniquenessProblems } from "./webhookChecks.js";

type BusConfig = Config["bus"];
type GatewayConfig = NonNullable<Config["gateway"]>;

/** Whether a NATS URL carries user info (`nats://user:pass@host`, `nats://TOKEN@host`). */
export function busUrlHasUserinfo(url: string | undefined): boolean {
  if (url === undefined) return false;
  try {
    const parsed = new URL(url);
    return parsed.username !== "" || parsed.password !== "";
  } catch {
    return false;
  }
}

/** `[bus]` credentials: at most one way of giving them, and user with password. Names keys, never values. */
export function busCredentialProblems(bus: BusConfig): ConfigProblem[] {
  return [...busCredentialsTwiceProblems(bus), ...busUserPasswordProblems(bus)];
}

function busCredentialsTwiceProblems(bus: BusConfig): ConfigProblem[] {
  const given = [
    bus.token !== undefined && "bus.token",
    (bus.user !== undefined || bus.password !== undefined) && "bus.user/bus.password",
    bus.creds !== undefined && "bus.creds",
    busUrlHasUserinfo(bus.url) && "user info in bus.url",
  ].filter((key): key is string => key !== false);
  if (given.length <= 1) return [];
  return [{ path: "bus", message: `NATS credentials are given twice (${given.join(" and ")}): keep one of them` }];
}

function busUserPasswordProblems(bus: BusConfig): ConfigProblem[] {
  if ((bus.user === undefined) === (bus.password === undefined)) return [];
  return [{ path: "bus", message: "bus.user and bus.password go together: set both or neither" }];
}

/** `[gateway]`: the token once, as `token` or as `?token=` in the URL, never both (the gateway would get two). */
export function gatewayTokenProblems(gateway: GatewayConfig | undefined): ConfigProblem[] {
  if (gateway?.token === undefined || !urlHasToken(gateway.url)) return [];
  return [{ path: "gateway", message: "the gateway token is given twice (gateway.token and ?token= in gateway.url): keep one of them" }];
}

/**
 * OpenAB's batching against `[queue]`: `per-thread` / `per-lane` batch what arrives during a turn,
 * which only `[queue] mode = "collect"` does (`followup` runs each message alone, `interrupt` only
 * the newest); and a batch size means nothing under `per-message`, where no batch forms. Checked
 * on each section that carries the keys (`[gateway]`, `[discord]`, `[slack]`); that they agree is
 * `processingProblems`'.
 */
export function batchingProblems(config: Config): ConfigProblem[] {
  return (["gateway", "discord", "slack"] as const).flatMap((name) => {
    const section = config[name];
    return section === undefined ? [] : sectionBatchingProblems(name, section, config.queue);
  });
}

function sectionBatchingProblems(name: string, section: Processing, queue: Config["queue"]): ConfigProblem[] {
  const mode = section.message_processing_mode;
  if (mode !== "per-message") {
    if (queue.mode === "collect") return [];
    return [
      {
        path: `${name}.message_processing_mode`,
        message: `"${mode}" batches the messages that arrive during a turn, but [queue] mode = "${queue.mode}" ${queue.mode === "followup" ? "runs each as its own turn" : "runs only the newest"}: set queue.mode = "collect" or message_processing_mode = "per-message"`,
      },
    ];
  }
  return (["max_buffered_messages", "max_batch_tokens"] as const)
    .filter((key) => section[key] !== DEFAULT_PROCESSING[key])
    .map((key) => ({
      path: `${name}.${key}`,
      message: `bounds a per-thread or per-lane batch, and message_processing_mode is "per-message", where none forms: set message_processing_mode = "per-thread" or "per-lane", or remove the key`,
    }));
}

/**
 * `[gateway] streaming` edits one message in place as a text reply is written; structured and
 * sequential delivery send bubbles, which upstream never streams either.
 */
export function streamingProblems(config: Config): ConfigProblem[] {
  if (config.gateway?.streaming !== true || config.delivery.mode === "text") return [];
  return [
    {
      path: "gateway.streaming",
      message: `true edits one message in place as a text reply is written, and [delivery] mode = "${config.delivery.mode}" sends bubbles: set streaming = false, or delivery.mode = "text"`,
    },
  ];
}

/**
 * `[delivery.blocks]` sends a text reply as several messages as it is written: not with bubble
 * modes (the agent plans those), not with `[gateway] streaming` (that edits one message instead;
 * with a bubble mode streamingProblems says so already).
 */
export function blocksProblems(config: Config): ConfigProblem[] {
  const { blocks, mode } = config.delivery;
  if (!blocks.enabled) return [];
  if (mode !== "text") {
    return [{ path: "delivery.blocks.enabled", message: `true sends a text reply as blocks, and [delivery] mode = "${mode}" sends bubbles: set blocks.enabled = false, or delivery.mode = "text"` }];
  }
  if (config.gateway?.streaming === true) {
    return [{ path: "delivery.blocks.enabled", message: "true sends a text reply as several messages, and [gateway] streaming = true edits one message in place: set one of them to false" }];
  }
  return [];
}

/** `[delivery.blocks]`'s chunker needs `min_chars ≤ max_chars`, whatever else is wrong with the blocks. */
export function blockSizeProblems(config: Config): ConfigProblem[] {
  const { blocks } = config.delivery;
  if (!blocks.enabled || blocks.min_chars <= blocks.max_chars) return [];
  return [{ path: "delivery.blocks.min_chars", message: `${blocks.min_chars} is more than delivery.blocks.max_chars (${blocks.max_chars}): no block could be cut; lower min_chars or raise max_chars` }];
}

/**
 * `[inbound] history_limit` keeps the group messages that did not mention the bot, which only
 * happens where mentions are required: `[gateway] bot_username` set, or `[telegram]`, whose bot's
 * username comes from Telegram.
 */
export function historyProblems(config: Config): ConfigProblem[] {
  if (config.inbound.history_limit === 0 || config.telegram !== undefined) return [];
  const botUsername = config.gateway?.bot_username;
  if (botUsername !== undefined && botUsername !== "") return [];
  return [{ path: "inbound.history_limit", message: `${config.inbound.history_limit} keeps group messages that did not mention the bot, and without [gateway] bot_username every message starts a turn: set gateway.bot_username, or history_limit = 0` }];
}

/**
 * `[delivery] response_prefix`: OpenClaw's model variables need the agent's model, which ACP does
 * not report to turnstream in a form it reads yet; refused rather than shown as `{model}`.
 */
export function responsePrefixProblems(config: Config): ConfigProblem[] {
  if (!hasUnresolvedModelVariable(config.delivery.response_prefix)) return prefixMarkdownProblems(config);
  return [
    {
      path: "delivery.response_prefix",
      message: "uses a model variable ({model}, {modelFull}, {provider}, {thinkingLevel}, {think}), which is not supported yet: turnstream does not learn the agent's model; use {identity.name} or literal text",
    },
  ];
}

/**
 * The resolved prefix goes before each message's first line and counts in `[delivery.blocks]`
 * max_chars: a line break or a fence of its own would break every message's Markdown, and a prefix
 * as long as max_chars leaves no room for text.
 */
function prefixMarkdownProblems(config: Config): ConfigProblem[] {
  const template = config.delivery.response_prefix;
  if (template === "") return [];
  const name = config.gateway?.bot_username;
  const prefix = resolveResponsePrefix(template, name === undefined ? {} : { identityName: name });
  const path = "delivery.response_prefix";
  const problem = prefixProblem(prefix);
  if (problem === "line_break") return [{ path, message: "holds a line break; it is put before each message's first line: keep it to one line" }];
  if (problem === "fence") return [{ path, message: "starts with a code fence (``` or ~~~), which would open a code block in every message: use other text" }];
  const { blocks } = config.delivery;
  const room = prefixRoom(prefix);
  if (!blocks.enabled || room < blocks.max_chars) return [];
  return [{ path, message: `takes ${room} chars of each message with its separator, and delivery.blocks.max_chars (${blocks.max_chars}) counts it: no text would fit; shorten the prefix or raise max_chars` }];
}

/** `[delivery] human_delay`: a custom range reads min to max (an unset end is natural's: 800, 2500). */
export function humanDelayProblems(config: Config): ConfigProblem[] {
  const delay = config.delivery.human_delay;
  if (typeof delay === "string") return [];
  const min = delay.min_ms ?? 800;
  const max = delay.max_ms ?? 2500;
  if (min <= max) return [];
  return [{ path: "delivery.human_delay", message: `waits from min_ms (${min}) to max_ms (${max}), and min_ms is more: set min_ms ≤ max_ms` }];
}

/** `[activity]` lists tool calls, which `[reactions] tool_display = "none"` says never to show. */
export function activityProblems(config: Config): ConfigProblem[] {
  if (!config.activity.enabled || config.reactions.tool_display !== "none") return [];
  return [{ path: "activity.enabled", message: 'true lists tool calls, and [reactions] tool_display = "none" hides them: set one of them otherwise' }];
}

/**
 * `[pool] preload_persisted_sessions` restores one process's saved sessions before it takes events.
 * Workers on NATS share their sessions' ids and take conversations as partitions move, so no
 * worker can know at start-up which sessions are its own: there, sessions resume on their next turn.
 */
export function preloadProblems(config: Config): ConfigProblem[] {
  if (!config.pool.preload_persisted_sessions || config.bus.url === undefined) return [];
  return [
    {
      path: "pool.preload_persisted_sessions",
      message: "true restores one process's saved sessions, and with [bus] url set workers share them and each resumes a conversation's session on its next turn: set preload_persisted_sessions = false, or leave bus.url unset",
    },
  ];
}

/** A check that spans more than one key: the problems it finds in a config that passed the schema. */
export type CrossCheck = (config: Config) => ConfigProblem[];

/**
 * Every check that spans more than one key, each on its own: the loader runs each one whose keys
 * all hold the file's own values (or defaults), so one bad key does not hide the others' problems.
 */
export const CROSS_CHECKS: readonly CrossCheck[] = [
  (config) => gatewayTokenProblems(config.gateway),
  (config) => busCredentialsTwiceProblems(config.bus),
  (config) => busUserPasswordProblems(config.bus),
  batchingProblems,
  processingProblems,
  streamingProblems,
  activityProblems,
  preloadProblems,
  blocksProblems,
  blockSizeProblems,
  historyProblems,
  humanDelayProblems,
  responsePrefixProblems,
  telegramModeProblems,
  telegramListenProblems,
  webhookUniquenessProblems,
  webhookPlatformProblems,
  webhookListenProblems,
  cronJobProblems,
];

/**
 * Every check that spans more than one key, run on a config that passed the schema. `run`,
 * `check-config` and the programmatic constructors all get them from resolveConfig, so what one
 * refuses the others refuse with the same line; none of them reads a file or connects.
 */
export function crossCheckProblems(config: Config): ConfigProblem[] {
  return CROSS_CHECKS.flatMap((check) => check(config));
}
