import { catchError, identity, of, pipe, throwError, type Observable, type OperatorFunction, type Unsubscribable } from "rxjs";
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

/** What `Pipeline.runValue` reports for one value: each value the stage emitted, then exactly one of `error` or `complete`. */
export interface StageObserver<V> {
  next(value: V): void;
  error(err: StageError): void;
  complete(): void;
}

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
  /** Each stage's operators, by stage name: one lookup both finds a stage and refuses an unknown name. */
  readonly #operators = new Map<string, unknown[]>(stageNames.map((stage) => [stage, []]));
  /** Each stage's operators composed once, when the stage last changed: not on every value. */
  readonly #composed = new Map<string, unknown>();

  /** Appends operators to a stage. */
  use<S extends StageName>(stage: S, ...operators: StageOperator<S>[]): this {
    (this.#stage(stage) as StageOperator<S>[]).push(...operators);
    this.#composed.delete(stage);
    return this;
  }

  /** Whether a stage has no operators: its values pass as they are, with no stream built for them. */
  isEmpty(stage: StageName): boolean {
    return this.#stage(stage).length === 0;
  }

  /** The stage's operators composed into one; the identity when the stage is empty. */
  operator<S extends StageName>(stage: S): StageOperator<S> {
    let composed = this.#composed.get(stage) as StageOperator<S> | undefined;
    if (composed === undefined) {
      const operators = this.#stage(stage) as StageOperator<S>[];
      composed = operators.reduce<StageOperator<S>>((all, next) => pipe(all, next), identity);
      this.#composed.set(stage, composed);
    }
    return composed;
  }

  /** Runs one value through a stage. Errors are wrapped in `StageError` naming the stage. */
  run<S extends StageName>(stage: S, value: StageValues[S]): Observable<StageValues[S]> {
    if (this.isEmpty(stage)) return of(value);
    return of(value).pipe(
      this.operator(stage),
      catchError((cause: unknown) => throwError(() => new StageError(stage, { cause }))),
    );
  }

  /**
   * `run` with callbacks, for the broker's hot path: an empty stage answers synchronously and
   * builds nothing; otherwise the value runs on its one-value stream as `run` does. Returns what
   * cancels a value still in the stage (nothing for one that is already done).
   */
  runValue<S extends StageName>(stage: S, value: StageValues[S], observer: StageObserver<StageValues[S]>): Unsubscribable | undefined {
    if (this.isEmpty(stage)) {
      observer.next(value);
      observer.complete();
      return undefined;
    }
    let done = false;
    const subscription = of(value)
      .pipe(this.operator(stage))
      .subscribe({
        next: (out) => observer.next(out),
        error: (cause: unknown) => {
          done = true;
          observer.error(new StageError(stage, { cause }));
        },
        complete: () => {
          done = true;
          observer.complete();
        },
      });
    return done ? undefined : subscription;
  }

  /** A stage's operators; a name that is no stage (from untyped code) throws. */
  #stage(stage: string): unknown[] {
    const operators = this.#operators.get(stage);
    if (operators === undefined) throw new TypeError(`unknown pipeline stage ${JSON.stringify(stage)}; stages are ${stageNames.join(", ")}`);
    return operators;
  }
}
