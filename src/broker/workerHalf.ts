import { busMessageChars } from "../bus/busMessageChars.js";
import type { LevelsWritten } from "../log/levelsWritten.js";
import type { Instruments } from "../metrics/instruments.js";
import type { Send } from "../pipeline/send.js";
import type { Subjects } from "../wire/index.js";
import { allPartitions, Worker } from "../worker/worker.js";
import { nativePlatforms } from "../platforms/nativePlatforms.js";
import { PlatformCapabilitiesOf } from "../platforms/platformCapabilitiesOf.js";
import type { BrokerParts } from "./brokerParts.js";

export interface WorkerHalfOptions {
  readonly subjects: Subjects;
  readonly levels: LevelsWritten;
  readonly send: Send;
  /** False once the broker is stopping: no new turn starts. */
  readonly accepting: () => boolean;
  readonly instruments: Instruments;
}

/** The broker's worker half from its parts: none for an edge, which runs no turns. */
export function workerHalf(parts: BrokerParts, { subjects, levels, send, accepting, instruments }: WorkerHalfOptions): Worker | undefined {
  if (parts.role === "edge") return undefined;
  const platforms = new PlatformCapabilitiesOf(parts.ports ?? [], nativePlatforms(parts.config));
  return new Worker({
    config: parts.config,
    bus: parts.bus,
    subjects,
    logger: parts.logger,
    levels,
    pipeline: parts.pipeline,
    handler: parts.turnHandler,
    send,
    // On NATS a message's send request must also fit the server's max_payload (a gateway may allow more, or no limit).
    messageLimit: (platform) => Math.min(platforms.messageLimit(platform), busMessageChars(parts.bus.maxMessageBytes?.())),
    capabilities: (platform) => platforms.capabilities(platform),
    ownership: parts.ownership ?? allPartitions(parts.config.bus.partitions),
    ...(parts.ledger === undefined ? {} : { ledger: parts.ledger }),
    ...(parts.triage === undefined ? {} : { triage: parts.triage }),
    ...(parts.history === undefined ? {} : { history: parts.history }),
    accepting,
    instruments,
  });
}
