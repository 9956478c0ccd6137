import type { SendShaper } from "../../operators/delivery/flow/sendShaper.js";
import type { LevelsWritten } from "../log/levelsWritten.js";
import type { Instruments } from "../metrics/instruments.js";
import { messageKind } from "../metrics/metricLabels.js";
import { createSender, type Send } from "../pipeline/send.js";
import type { Subjects } from "../wire/index.js";
import type { BrokerParts } from "./brokerParts.js";

const sendMarginMs = 5_000;
/** Logged at debug as each attempt of a send leaves a worker for its platform (the gateway, or a native adapter such as Telegram's). */
export const SEND_LEAVING_LOG = "message leaving for its platform";
/** Further requests for a send nobody answered, on a shared bus. */
const sendRetries = 3;

export interface BrokerSenderOptions {
  readonly subjects: Subjects;
  readonly instruments: Instruments;
  /** What the logger writes: the debug line's fields are built only when it is written. */
  readonly levels: LevelsWritten;
  /** `[rate_limits]`: what holds each message until its platform's buckets have room. */
  readonly shaper: SendShaper | undefined;
}

/**
 * How a broker sends on the send subject, for the worker's turns and the edge's own notices: the
 * gateway's ack timeout with a margin, asked again on a shared bus, a "try again later" (a
 * gateway's, or a native platform's such as Telegram's 429) waited out, each attempt logged at
 * debug as it leaves.
 */
export function brokerSender(parts: BrokerParts, { subjects, instruments, levels, shaper }: BrokerSenderOptions): Send {
  return createSender({
    bus: parts.bus,
    subjects,
    pipeline: parts.pipeline,
    timeoutMs: (parts.config.gateway?.gateway_ack_timeout_secs ?? 12) * 1000 + sendMarginMs,
    // On a shared bus an answer can be lost between servers: ask again (the edge recognises a retry).
    retries: parts.bus.shared ? sendRetries : 0,
    instruments,
    // A gateway's "try again later" is waited out for as long as a turn may run.
    retryBudgetMs: parts.config.pool.prompt_hard_timeout_secs * 1000,
    onRetry: ({ message, error, waitMs, attempt }) =>
      parts.logger.warn({ reason: "retry_later", code: error.code, platform: message.platform, retryAfterMs: waitMs, attempt }, "platform asked to send later; sending again"),
    // Each send as it leaves, for tracing pacing and rate limits: its fields are built only when written.
    onAttempt: (message, attempt) => {
      if (levels.debug) parts.logger.debug({ platform: message.platform, channel: message.channel.id, kind: messageKind(message.command), attempt }, SEND_LEAVING_LOG);
    },
    // A worker's sends wait for their platform's rate limits.
    ...(shaper === undefined ? {} : { shaper }),
  });
}
