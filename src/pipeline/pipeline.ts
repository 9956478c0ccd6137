import { catchError, identity, of, pipe, throwError, type Observable, type OperatorFunction } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { StageError } from "./errors.js";

/** Where a developer's operator can go, in flow order. */
export const stageNames = ["afterIngress", "beforeDispatch", "beforeSend"] as const;
export type StageName = (typeof stageNames)[number];

/** The value each stage carries. */
export interface StageValues {
  /** On the edge: an event that passed parsing, the skip rules and the trust gate, before it is queued. */
  readonly afterIngress: GatewayEvent;
  /** On the worker: an event whose turn is about to run, inside its session's one-at-a-time lane. */
  readonly beforeDispatch: GatewayEvent;
  /** Every message about to be sent to the gateway. */
  readonly beforeSend: OutboundMessage;
}

export type StageOperator<S extends StageName> = OperatorFunction<StageValues[S], StageValues[S]>;

/**
 * The user-extensible stages of the broker's flow. Operators added with `use` run in the order
 * they were added. A stage runs once per value, on a one-value stream: emitting nothing drops the
 * value (the event is settled, no turn runs / the message is not sent), emitting several fans out,
 * and an error is logged with reason `stage_failed` and settles the value — it never stops the
 * broker. Cross-value state can live in the operator's closure; time-based operators across
 * values (debounce, buffering) belong in the broker's own inbound stages.
 *
 * ```ts
 * const pipeline = new Pipeline().use("beforeDispatch", keywordFilter(["unsubscribe"]));
 * const broker = createBroker({ config, pipeline });
 * ```
 */
export class Pipeline {
  readonly #operators: { [S in StageName]: StageOperator<S>[] } = {
    afterIngress: [],
    beforeDispatch: [],
    beforeSend: [],
  };

  /** Appends operators to a stage. */
  use<S extends StageName>(stage: S, ...operators: StageOperator<S>[]): this {
    assertStageName(stage);
    this.#operators[stage].push(...operators);
    return this;
  }

  /** The stage's operators composed into one; the identity when the stage is empty. */
  operator<S extends StageName>(stage: S): StageOperator<S> {
    assertStageName(stage);
    const operators = this.#operators[stage] as StageOperator<S>[];
    return operators.reduce<StageOperator<S>>((composed, next) => pipe(composed, next), identity);
  }

  /** Runs one value through a stage. Errors are wrapped in `StageError` naming the stage. */
  run<S extends StageName>(stage: S, value: StageValues[S]): Observable<StageValues[S]> {
    assertStageName(stage);
    // An empty stage is the identity: no operator chain per value on the hot path.
    if (this.#operators[stage].length === 0) return of(value);
    return of(value).pipe(
      this.operator(stage),
      catchError((cause: unknown) => throwError(() => new StageError(stage, { cause }))),
    );
  }
}

function assertStageName(stage: string): asserts stage is StageName {
  if (!(stageNames as readonly string[]).includes(stage)) {
    throw new TypeError(`unknown pipeline stage ${JSON.stringify(stage)}; stages are ${stageNames.join(", ")}`);
  }
}
