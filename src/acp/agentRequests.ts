import type { Logger } from "../log/logger.js";
import type { QuestionEvent } from "../../operators/delivery/agentEvent.js";
import type { QuestionOutcome } from "../../operators/ask/question.js";
import { untrustedName, untrustedText } from "../../operators/ingress/untrustedText.js";
import { rpcErrorCodes, RpcError } from "./jsonRpc.js";
import { decidePermission, permissionRequestParams, type PermissionMode, type PermissionOutcome } from "./permission.js";
import { permissionAsk, type PermissionAsking } from "./permissionAsk.js";

/** Refused method names remembered (logged once each); an agent inventing names cannot grow the set past this. */
const maxRefusedMethods = 64;

export interface AgentRequestOptions {
  /** `[agent] permission_mode`. */
  readonly permissionMode: PermissionMode;
  /** Under `ask`: how a permission request becomes a question for the session's running turn. */
  readonly asking?: PermissionAsking;
  /** Whether the session's running turn was cancelled: its permission requests are answered `cancelled`. */
  readonly isCancelled: (sessionId: string) => boolean;
  readonly logger: Logger;
}

/** Answers the agent's requests, and ends the permission questions still open in the chat. */
export interface AgentRequestAnswerer {
  answer(method: string, params: unknown): unknown;
  /** The session's turn was cancelled or is over: every permission request still asked in the chat is answered `cancelled`. */
  cancelAsked(sessionId: string): void;
}

/**
 * The answer to a request the agent sends us: `session/request_permission` by `permissionMode`
 * (logged as `auto-respond permission`) — under `ask`, as a question to the person in the chat,
 * handed to the session's running turn and answered when they answer (or the timeout's fallback
 * applies) — and everything else -32601 (fs, terminal: not advertised), logged once per method
 * name. Throws `RpcError` for the error answers.
 */
export function agentRequestAnswerer({ permissionMode, asking, isCancelled, logger }: AgentRequestOptions): AgentRequestAnswerer {
  const refused = new Set<string>();
  /** The permission requests asked in the chat and not answered yet, by session: each ends them `cancelled`. */
  const asked = new Map<string, Set<() => void>>();
  const answer = (method: string, params: unknown): unknown => {
    if (method === "session/request_permission") {
      const request = permissionRequestParams.safeParse(params);
      if (!request.success) throw new RpcError(rpcErrorCodes.invalidParams, "Invalid params");
      const { sessionId } = request.data;
      const cancelled = sessionId !== undefined && isCancelled(sessionId);
      const title = request.data.toolCall?.title ?? undefined;
      const logged = { kind: "none", title: title === undefined ? undefined : untrustedText(title) };
      if (!cancelled && permissionMode === "ask" && asking !== undefined && sessionId !== undefined) {
        const question = permissionAsk(request.data, asking);
        let settle: ((outcomes: readonly QuestionOutcome[]) => void) | undefined;
        let cancel: (() => void) | undefined;
        const outcome = new Promise<PermissionOutcome>((resolve) => {
          let open = true;
          const end = (outcome: PermissionOutcome, how: string): void => {
            if (!open) return;
            open = false;
            if (cancel !== undefined) asked.get(sessionId)?.delete(cancel);
            logger.info({ mode: permissionMode, how, outcome, title: logged.title }, "permission answered in the chat");
            resolve(outcome);
          };
          cancel = () => end({ outcome: "cancelled" }, "cancelled");
          settle = (outcomes) => {
            const [first] = outcomes;
            end(question.outcomeOf(first), first?.kind ?? "cancelled");
          };
        });
        const event: QuestionEvent = {
          type: "question",
          kind: "permission",
          questions: [question.question],
          timeoutMs: asking.timeoutMs,
          ...(question.fallbackLabel === undefined ? {} : { fallbackLabel: question.fallbackLabel }),
          settle: (outcomes) => settle?.(outcomes),
        };
        if (asking.ask(sessionId, event)) {
          let pending = asked.get(sessionId);
          if (pending === undefined) asked.set(sessionId, (pending = new Set()));
          if (cancel !== undefined) pending.add(cancel);
          logger.info({ mode: permissionMode, title: logged.title, options: question.question.options.length }, "permission asked in the chat");
          return outcome.then((chosen) => ({ outcome: chosen }));
        }
        // No turn runs on the session to ask in: the fallback answers, as it would on a timeout.
        const decided = decidePermission(request.data.options, asking.fallback);
        logger.info({ mode: permissionMode, kind: untrustedName(decided.kind), outcome: decided.outcome, title: logged.title, reason: "no_turn" }, "auto-respond permission");
        return { outcome: decided.outcome };
      }
      const mode = permissionMode === "ask" ? (asking?.fallback ?? "reject") : permissionMode;
      const { outcome, kind } = cancelled ? { outcome: { outcome: "cancelled" } as const, kind: "none" } : decidePermission(request.data.options, mode);
      logger.info(
        { mode: permissionMode, kind: untrustedName(kind), outcome, title: logged.title, ...(cancelled ? { reason: "turn_cancelled" } : {}) },
        "auto-respond permission",
      );
      return { outcome };
    }
    // Remembered by its log form, and only so many.
    const name = untrustedName(method);
    if (!refused.has(name)) {
      if (refused.size < maxRefusedMethods) refused.add(name);
      logger.warn({ reason: "method_not_found", method: name }, "agent request refused");
    }
    throw new RpcError(rpcErrorCodes.methodNotFound, "Method not found", { method });
  };
  return {
    answer,
    cancelAsked: (sessionId) => {
      const pending = asked.get(sessionId);
      if (pending === undefined) return;
      asked.delete(sessionId);
      for (const cancel of [...pending]) cancel();
    },
  };
}
