import type { Logger } from "../log/logger.js";
import { untrustedName, untrustedText } from "../../operators/ingress/untrustedText.js";
import { rpcErrorCodes, RpcError } from "./jsonRpc.js";
import { decidePermission, permissionRequestParams, type PermissionMode } from "./permission.js";

/** Refused method names remembered (logged once each); an agent inventing names cannot grow the set past this. */
const maxRefusedMethods = 64;

export interface AgentRequestOptions {
  /** `[agent] permission_mode`. */
  readonly permissionMode: PermissionMode;
  /** Whether the session's running turn was cancelled: its permission requests are answered `cancelled`. */
  readonly isCancelled: (sessionId: string) => boolean;
  readonly logger: Logger;
}

/**
 * The answer to a request the agent sends us: `session/request_permission` by `permissionMode`
 * (logged as `auto-respond permission`), everything else -32601 (fs, terminal: not advertised),
 * logged once per method name. Throws `RpcError` for the error answers.
 */
export function agentRequestAnswerer({ permissionMode, isCancelled, logger }: AgentRequestOptions): (method: string, params: unknown) => unknown {
  const refused = new Set<string>();
  return (method, params) => {
    if (method === "session/request_permission") {
      const request = permissionRequestParams.safeParse(params);
      if (!request.success) throw new RpcError(rpcErrorCodes.invalidParams, "Invalid params");
      const cancelled = request.data.sessionId !== undefined && isCancelled(request.data.sessionId);
      const { outcome, kind } = cancelled ? { outcome: { outcome: "cancelled" } as const, kind: "none" } : decidePermission(request.data.options, permissionMode);
      const title = request.data.toolCall?.title ?? undefined;
      logger.info(
        { mode: permissionMode, kind: untrustedName(kind), outcome, title: title === undefined ? undefined : untrustedText(title), ...(cancelled ? { reason: "turn_cancelled" } : {}) },
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
}
