import { AcpProtocolError, AcpRequestError, AcpTimeoutError, AgentDiedError, AgentExitedError, HardTimeoutError, PoolClosedError, PoolWaitTimeoutError } from "../acp/errors.js";
import { BrokerFailureError } from "../failure/brokerFailure.js";
import { AgentTurnError, DeliveryIncompleteError } from "../pipeline/errors.js";

/**
 * Errors whose message a user may read as it is: the agent's own JSON-RPC error and OpenAB's fixed
 * agent-error strings (shown as upstream shows them), turnstream's short fixed texts, and the
 * delivery errors built from those. None of them carries a path, an errno or a stack.
 */
const shownAsIs: readonly (abstract new (...args: never[]) => Error)[] = [
  AcpRequestError,
  AgentExitedError,
  AgentDiedError,
  HardTimeoutError,
  AcpTimeoutError,
  AcpProtocolError,
  PoolWaitTimeoutError,
  PoolClosedError,
  BrokerFailureError,
  DeliveryIncompleteError,
  AgentTurnError,
];

/**
 * The error a user is shown for `err`: `err` itself when its message is fit for a chat, else an
 * `internal_error` failure wrapping it — an fs error, a bug's TypeError, anything unforeseen.
 */
export function userFacingError(err: unknown): Error {
  if (shownAsIs.some((type) => err instanceof type)) return err as Error;
  return new BrokerFailureError("internal_error", {}, { cause: err });
}
