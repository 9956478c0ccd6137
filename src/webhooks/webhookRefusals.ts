import type { Logger } from "../log/logger.js";
import { RefusalTally } from "../log/refusalTally.js";

/** Why the listener turned a request away (the `reason` of its `webhook request refused` lines). */
export type WebhookRefusalReason =
  | "not_found"
  | "method_not_allowed"
  | "bearer_missing"
  | "bearer_malformed"
  | "bearer_wrong"
  | "signature_missing"
  | "signature_malformed"
  | "signature_wrong"
  | "too_large"
  | "rate_limited"
  | "not_json"
  | "event_id_missing"
  | "body_aborted";

export const WEBHOOK_REFUSED_LOG = "webhook request refused";
export const WEBHOOK_NOT_QUEUED_LOG = "webhook delivery not queued";

/**
 * The listener's refusals as log lines a flood cannot multiply: one `RefusalTally` per endpoint
 * and reason (both from closed sets: the config's endpoints, the reasons above), so the first of
 * each is a line of its own and the rest are summed up every few seconds. A line carries the
 * endpoint's name, the reason and the status, never a header, the body or a secret.
 */
export class WebhookRefusals {
  readonly #logger: Logger;
  readonly #tallies = new Map<string, RefusalTally>();

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** One refused request: `status` undefined when there was no one left to answer, `endpoint` for a path no endpoint serves. */
  refused(reason: WebhookRefusalReason, status: number | undefined, endpoint: string | undefined): void {
    this.#tally(WEBHOOK_REFUSED_LOG, reason, { ...(status === undefined ? {} : { status }), ...(endpoint === undefined ? {} : { endpoint }) }).count();
  }

  /** One authenticated delivery the broker did not take (503); the first of a run is logged with its error. */
  notQueued(endpoint: string, err: unknown): void {
    this.#tally(WEBHOOK_NOT_QUEUED_LOG, "submit_failed", { status: 503, endpoint }).count({ err });
  }

  /** Writes what is still counted (the listener closes). */
  flush(): void {
    for (const tally of this.#tallies.values()) tally.flush();
  }

  #tally(msg: string, reason: string, fields: Readonly<Record<string, unknown>>): RefusalTally {
    const key = `${msg}\u0000${reason}\u0000${String(fields["endpoint"] ?? "")}`;
    let tally = this.#tallies.get(key);
    if (tally === undefined) {
      tally = new RefusalTally(this.#logger, { msg, reason, fields });
      this.#tallies.set(key, tally);
    }
    return tally;
  }
}
