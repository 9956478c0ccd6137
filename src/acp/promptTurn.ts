import { Observable, type Subscriber } from "rxjs";
import { z } from "zod";
import type { Logger } from "../log/logger.js";
import type { AgentEvent, TokenUsage } from "../../operators/delivery/agentEvent.js";
import type { ContentBlock } from "../../operators/dispatch/contentBlock.js";
import type { AgentProcess } from "./agentProcess.js";
import type { JsonRpcConnection } from "./connection.js";
import { AcpProtocolError, AgentDiedError, HardTimeoutError } from "./errors.js";
import type { SessionTurns } from "./sessionTurns.js";
import { withExitStatus } from "./withExitStatus.js";

export interface PromptOptions {
  /** `[pool] prompt_hard_timeout_secs`: past it the turn is cancelled. */
  readonly hardTimeoutMs: number;
  /** `[pool] hung_grace_secs`: how long a cancelled hung turn may take to answer before the agent is killed. */
  readonly hungGraceMs: number;
  /** `[pool] liveness_check_secs`: how often a running turn checks that the agent is alive. */
  readonly livenessMs: number;
}

/** What a prompt turn runs on: the client's agent, its connection, and who owns each session's updates. */
export interface PromptTurnAgent {
  /** The client: whether the agent is alive, `session/cancel`, and ending a hung agent. */
  readonly client: { readonly alive: boolean; readonly process: AgentProcess; cancel(sessionId: string): void; close(): Promise<void> };
  readonly connection: JsonRpcConnection;
  /** Which turn owns each session's updates. */
  readonly turns: SessionTurns<Subscriber<AgentEvent>>;
  readonly logger: Logger;
}

const promptResult = z.looseObject({
  stopReason: z.string(),
  usage: z.looseObject({ inputTokens: z.number().optional(), outputTokens: z.number().optional(), totalTokens: z.number().optional() }).nullish(),
});

/**
 * One prompt turn (`AcpClient.prompt`): `session/prompt`, the session's updates routed to the
 * subscriber while it runs, then `end` with the stop reason and usage. Cancelled at the hard
 * timeout, failed (and the agent closed) when it still does not answer within the grace, failed
 * when a liveness check finds the agent gone; unsubscribing before the answer cancels it.
 */
export function promptTurn({ client, connection, turns, logger }: PromptTurnAgent, sessionId: string, prompt: readonly ContentBlock[], options: PromptOptions): Observable<AgentEvent> {
  return new Observable<AgentEvent>((subscriber) => {
    const turn = turns.open(sessionId, subscriber);
    if (turn === undefined) {
      subscriber.error(new Error(`a turn is already running on session ${sessionId}`));
      return;
    }
    let settled = false;
    let answered = false;
    let timedOut = false;
    const timers: NodeJS.Timeout[] = [];
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      timers.forEach(clearTimeout); // clears the liveness interval too (one Timeout class in Node)
      turns.detach(turn); // from here on, the session's updates are no longer this turn's
      return true;
    };
    // The agent answered the prompt (or never will: the connection closed). Runs synchronously
    // when the answer is read, so an update in the same read after it is already late.
    const answer = () => {
      if (answered) return;
      answered = true;
      turns.answered(turn);
    };
    const fail = (err: unknown) => {
      if (settle()) void withExitStatus(err, client.process).then((e) => subscriber.error(e));
    };

    connection.request("session/prompt", { sessionId, prompt }, undefined, answer).then((raw) => {
      if (timedOut) return fail(new HardTimeoutError(options.hardTimeoutMs));
      const result = promptResult.safeParse(raw);
      if (!result.success) return fail(new AcpProtocolError("session/prompt", "a malformed result"));
      if (!settle()) return;
      const usage = result.data.usage ?? undefined;
      subscriber.next(usage === undefined ? { type: "end", stopReason: result.data.stopReason } : { type: "end", stopReason: result.data.stopReason, usage: usage as TokenUsage });
      subscriber.complete();
    }, (err: unknown) => {
      answer();
      fail(err);
    });

    timers.push(
      setTimeout(() => {
        timedOut = true;
        logger.warn({ reason: "hard_timeout", sessionId, hardTimeoutMs: options.hardTimeoutMs }, "turn exceeded hard timeout");
        client.cancel(sessionId);
        timers.push(
          setTimeout(() => {
            logger.warn({ reason: "hung", sessionId, hungGraceMs: options.hungGraceMs }, "force-evicting hung session");
            fail(new HardTimeoutError(options.hardTimeoutMs));
            void client.close();
          }, options.hungGraceMs),
        );
      }, options.hardTimeoutMs),
      setInterval(() => {
        if (!client.alive) fail(new AgentDiedError());
      }, options.livenessMs),
    );

    return () => {
      if (settle() && !answered) client.cancel(sessionId);
    };
  });
}
