import { catchError, concat, throwError, type OperatorFunction } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { BrokerFailureError } from "../failure/brokerFailure.js";
import { AgentTurnError, DeliveryIncompleteError } from "../pipeline/errors.js";
import { isStateOutage } from "../state/errors.js";
import { SendError } from "../wire/index.js";
import { sendText } from "./sendText.js";
import type { TurnContext } from "./turn.js";
import { userFacingError } from "./userFacingError.js";

/**
 * A failed turn tells the user `⚠️ <error>` (the agent's own error, the agent could not start, a
 * bubble turn failed after bubbles went out), then fails with the original error for the log —
 * unless the gateway is what failed, or the reply showed it already.
 */
export function toldTheUser(event: GatewayEvent, context: TurnContext): OperatorFunction<never, never> {
  return catchError((err: unknown) =>
    failedAtTheGateway(err) ? throwError(() => err) : concat(sendText(context, event, `⚠️ ${shown(err, context).message}`), throwError(() => err)),
  );
}

/**
 * What the user may see of `err` (see `userFacingError`). A broker-side failure is logged here
 * with what the operator fixes: the config key, the path and the errno.
 */
export function shown(err: unknown, context: TurnContext): Error {
  const safe = userFacingError(err);
  if (safe instanceof BrokerFailureError) {
    const { code, configKey, path, errno } = safe;
    context.logger.error({ reason: code, configKey, path, errno, err: safe }, "turn failed on the broker side");
  }
  return safe;
}

/**
 * Nothing more to tell the user: the gateway itself failed, the delivered reply already showed the
 * error, or shared state was unreachable (the broker tries the event again).
 */
function failedAtTheGateway(err: unknown): boolean {
  return (
    err instanceof SendError ||
    isStateOutage(err) ||
    (err instanceof DeliveryIncompleteError && err.cause instanceof SendError) ||
    (err instanceof AgentTurnError && err.notified)
  );
}
