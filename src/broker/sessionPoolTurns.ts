import { resolve as resolvePath } from "node:path";
import type { FileSettings } from "../turn/files/turnFiles.js";
import { createSessionPool } from "../acp/pool/createSessionPool.js";
import { secretValues, type Config } from "../config/index.js";
import type { Logger } from "../log/logger.js";
import { chatRedaction } from "../log/secretScrubber.js";
import { connectionLimitFor } from "../mcp/connectionLimit.js";
import { ReplyToolHost } from "../mcp/replyToolHost.js";
import { replyToolSpecOf } from "../mcp/replyToolSpec.js";
import type { BrokerMetrics } from "../metrics/brokerMetrics.js";
import type { AgentExitCause } from "../metrics/instruments.js";
import { SpeechToText } from "../stt/speechToText.js";
import { createAgentTurnHandler } from "../turn/agentTurnHandler.js";
import { QuestionDesk } from "../turn/questions/questionDesk.js";
import type { StreamingOptions } from "../turn/delivery/deliverStreaming.js";
import type { GroupHistory } from "../turn/groupHistory.js";
import type { TurnHandler } from "../turn/turn.js";
import type { BrokerState } from "./brokerState.js";

export interface SessionPoolTurnsOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** This build's version, told to the agents. */
  readonly version: string;
  /** The worker's stores: the pool's session ids, the inbound dedupe. */
  readonly state: BrokerState | undefined;
  readonly history: GroupHistory | undefined;
  readonly metrics: BrokerMetrics | undefined;
}

/** A worker's default turns and what they run on, to start and close with the broker. */
export interface SessionPoolTurns {
  readonly turnHandler: TurnHandler;
  /** Present when something must start before the worker consumes: the reply tool, the saved sessions' preload. */
  readonly start?: () => Promise<void>;
  /** Closes the pool's agents, then the reply tool. */
  readonly close: () => Promise<void>;
}

/**
 * The default turn handler (`[agent]`, `[pool]`): each turn one ACP prompt turn on the session
 * pool, with the reply tool, speech-to-text, streaming and the activity message as configured.
 */
export function sessionPoolTurns(config: Config, { env, logger, version, state, history, metrics }: SessionPoolTurnsOptions): SessionPoolTurns {
  const replyTool = replyToolHostFor(config, logger);
  // What users see of agent text besides its reply (tool titles and arguments, errors) is masked as the log is.
  const redact = chatRedaction(secretValues(config));
  const pool = createSessionPool(config, {
    env,
    logger,
    clientVersion: version,
    redact,
    ...(state?.sessions === undefined ? {} : { store: state.sessions }),
    mcp: replyTool,
    ...(metrics === undefined ? {} : { onAgentExit: (cause: AgentExitCause) => metrics.agentExited(cause) }),
  });
  metrics?.read({ sessions: () => pool.size, agentProcesses: () => pool.agentProcesses, waitingForSession: () => pool.waiting });
  const preload = config.pool.preload_persisted_sessions;
  const turnHandler = createAgentTurnHandler({
    pool,
    config,
    ...(state === undefined ? {} : { inboundDedupe: state.dedupe }),
    ...(history === undefined ? {} : { history }),
    replyTool,
    questions: new QuestionDesk({ answerers: config.agent.permission_answerers ?? "requester" }),
    files: fileSettingsOf(config),
    ...streamingOf(config),
    ...(config.stt.enabled ? { stt: { speech: speechToTextFor(config, env, logger), echo: config.stt.echo_transcript } } : {}),
    ...(config.gateway?.bot_username === undefined ? {} : { identityName: config.gateway.bot_username }),
    ...(config.activity.enabled && config.reactions.tool_display !== "none"
      ? { activity: { toolDisplay: config.reactions.tool_display, redact, places: { workspaceRoot: resolvePath(config.agent.working_dir), ...(env.HOME === undefined ? {} : { home: env.HOME }) } } }
      : {}),
  });
  return {
    turnHandler,
    start: async () => {
      // The MCP server first: a preloaded session is offered it.
      await replyTool.start();
      if (preload) await pool.preload();
    },
    close: async () => {
      await pool.close();
      await replyTool.close();
    },
  };
}

/**
 * Text turns stream under `[gateway] streaming` (every gateway platform that can edit, and one
 * with no hello, as upstream) or where a native platform streams by its capabilities: `[telegram]
 * streaming` (on by default: upstream's follows `rich_messages`), `[discord]` (upstream always
 * streams there), `[slack] streaming` (on by default). Native streaming yields where a text reply
 * is asked to go out otherwise, as `[delivery.blocks]`; bubble modes never stream.
 */
function streamingOf(config: Config): { streaming?: StreamingOptions } {
  const gateway = config.gateway?.streaming === true;
  const native = config.telegram?.streaming === true || config.discord !== undefined || config.slack?.streaming === true;
  if (!gateway && (!native || config.delivery.blocks.enabled)) return {};
  return { streaming: { placeholder: config.gateway?.streaming_placeholder ?? true, withoutHello: gateway } };
}

/** `[stt]`'s client: an empty `api_key` with a groq.com `base_url` takes `GROQ_API_KEY` from the environment, as upstream. */
function speechToTextFor(config: Config, env: NodeJS.ProcessEnv, logger: Logger): SpeechToText {
  const { stt } = config;
  const apiKey = stt.api_key === "" && stt.base_url.includes("groq.com") ? (env.GROQ_API_KEY ?? "") : stt.api_key;
  return new SpeechToText({ baseUrl: stt.base_url, apiKey, model: stt.model, logger, timeoutMs: stt.timeout_secs * 1000 });
}

/**
 * The `turnstream` MCP server of a worker that runs turns on the session pool: `ask` in every
 * mode, and `reply` in structured and sequential modes unless `[delivery] reply_tool = "off"`.
 */
function replyToolHostFor(config: Config, logger: Logger): ReplyToolHost {
  return new ReplyToolHost({ spec: replyToolSpecOf(config.delivery, config.agent), logger, connectionLimit: connectionLimitFor(config.pool.max_sessions) });
}

/** The agent's files may come from its working directory and `[agent] outbound_dir`, up to `[delivery] max_file_bytes`. */
function fileSettingsOf(config: Config): FileSettings {
  const workingDir = resolvePath(config.agent.working_dir);
  const allowed = config.agent.outbound_dir === undefined ? [workingDir] : [workingDir, resolvePath(workingDir, config.agent.outbound_dir)];
  return { roots: { workingDir, allowed }, ...(config.delivery.max_file_bytes === undefined ? {} : { maxFileBytes: config.delivery.max_file_bytes }) };
}
