import type { Subscriber } from "rxjs";
import type { Logger } from "../log/logger.js";
import type { AgentEvent } from "../../operators/delivery/agentEvent.js";
import type { Redact } from "../../operators/delivery/text/redactSecrets.js";
import { untrustedName } from "../../operators/ingress/untrustedText.js";
import type { SessionTurns } from "./sessionTurns.js";
import { classifyUpdate, sessionUpdateParams } from "./sessionUpdate.js";

/** Where an agent's `session/update`s can go. */
export interface SessionUpdateRouting {
  /** Which turn owns each session's updates. */
  readonly turns: SessionTurns<Subscriber<AgentEvent>>;
  /** Sessions being loaded: the history they replay is not part of any turn. */
  readonly replaying: ReadonlySet<string>;
  readonly logger: Logger;
  /** Masks secrets in tool titles (`classifyUpdate`). */
  readonly redact: Redact | undefined;
}

/**
 * One notification from the agent: a `session/update` goes, as a typed event, to the running turn
 * that owns its session; one no turn owns, a replayed one, a malformed one and any other method are
 * dropped (logged, except the replay).
 */
export function routeSessionUpdate(method: string, params: unknown, { turns, replaying, logger, redact }: SessionUpdateRouting): void {
  if (method !== "session/update") {
    logger.debug({ method: untrustedName(method) }, "agent notification ignored");
    return;
  }
  const parsed = sessionUpdateParams.safeParse(params);
  if (!parsed.success) {
    logger.warn({ reason: "bad_session_update" }, "agent notification ignored");
    return;
  }
  const { sessionId, update } = parsed.data;
  if (replaying.has(sessionId)) return;
  const route = turns.route(sessionId);
  if ("drop" in route) {
    // No running turn owns it (see SessionTurns): never delivered, to that turn or a later one.
    // Whatever the agent put in them: an unknown session's id is not one of ours, so it is cleaned too.
    const fields = { reason: route.drop.reason, sessionId: untrustedName(sessionId), sessionUpdate: untrustedName(update.sessionUpdate) };
    if (route.drop.warn) logger.warn(fields, "session update outside a turn");
    else logger.debug(fields, "session update outside a turn");
    return;
  }
  const event = classifyUpdate(update, redact);
  if (event !== undefined) route.owner.next(event);
}
