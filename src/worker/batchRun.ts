import { Subscription, type SchedulerLike, type Unsubscribable } from "rxjs";
import type { LaneBatch } from "../../operators/dispatch/laneQueue.js";
import { isControlCommand } from "../../operators/ingress/controlCommand.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { Logger } from "../log/logger.js";
import { noInstruments } from "../metrics/instruments.js";
import type { DeliveryLedger } from "../state/deliveryLedger.js";
import { admitByLedger, type Admission } from "./ledgerAdmission.js";
import type { IntakeMessage } from "./partitionIntake.js";
import { runTurn, type TurnEnd, type TurnRunOptions } from "./turnRun.js";

type Intake = IntakeMessage<GatewayEvent>;

/** What a batch needs of its worker. */
export interface BatchSlots {
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly ledger: DeliveryLedger | undefined;
  readonly turn: TurnRunOptions;
  /** How long a turn that could not reach shared state waits before it is attempted again. */
  readonly deferMs: number;
  /** False once the broker is stopping: no new turn starts. */
  accepting(): boolean;
  /** Whether a turn may start on this message (its partition still this worker's, not draining); called unbound. */
  readonly isCurrent: (item: Intake) => boolean;
  /** A turn started (+1) or ended (-1) on `partition`. */
  count(partition: number, delta: number): void;
  /** OpenAB batching (`per-thread` / `per-lane`): a turn runs on its last message with the others as its batch. */
  readonly batching: boolean;
}

/**
 * A lane's batch as turns, one after another: consecutive human messages collected into one turn
 * (OpenClaw's collect prompt when there are several, or when the cap dropped some); control
 * commands and proactive events each alone — triage has to judge every proactive event on its
 * own. Each turn's whole life: the ledger's say (a completed event is acked, not run again), the
 * turn, then the acks. Events are left unacked when the broker is stopping or their partition is
 * no longer this worker's: the bus hands them on. A turn that started claims its events, so a
 * partition moving mid-turn does not hand them to the next owner while this turn still sends; what
 * the turn did not settle (cancelled) is handed back when it ends. A turn deferred because shared state was
 * unreachable is attempted again after `deferMs` right here, its events still held: it keeps its
 * session's lane, so the session's later events cannot overtake it.
 *
 * One object per batch, with methods rather than closures per turn; `done` is told once, after
 * the last turn, unless the batch is cancelled first (`unsubscribe`, the worker stopping).
 */
export class BatchRun implements Unsubscribable {
  readonly #slots: BatchSlots;
  readonly #batch: LaneBatch<Intake>;
  readonly #laneKey: string;
  readonly #done: () => void;
  /** Over: every turn ran, or the batch was cancelled. */
  #closed = false;
  readonly #turns: (readonly Intake[])[];
  #next = 0;
  #looping = false;
  /** The running turn: its events, partition, whether it is counted as running, and what runs of it now. */
  #items: readonly Intake[] = [];
  #partition = 0;
  #counted = false;
  #step: Unsubscribable | undefined;
  #finished = false;
  /** Turns finished so far: a step kept after its turn already finished would cancel the next one. */
  #turnNumber = 0;
  /** The running turn's events, claimed on the bus: they stay with this worker until the turn settles them. */
  #claimed: readonly Intake[] = NO_ITEMS;

  constructor(slots: BatchSlots, batch: LaneBatch<Intake>, laneKey: string, done: () => void) {
    this.#slots = slots;
    this.#batch = batch;
    this.#laneKey = laneKey;
    this.#done = done;
    this.#turns = turnsOf(batch.items);
  }

  /**
   * Runs the turns; returns the batch itself while a turn still runs (what cancels it: the lane
   * keeps it), `undefined` when every turn was over within the call.
   */
  start(): Unsubscribable | undefined {
    this.#loop();
    return this.#closed ? undefined : this;
  }

  /** A loop, not recursion, so turns that finish synchronously do not grow the stack. */
  #loop(): void {
    if (this.#looping) return;
    this.#looping = true;
    while (!this.#closed) {
      const items = this.#turns[this.#next];
      if (items === undefined) {
        this.#closed = true;
        this.#done();
        break;
      }
      this.#next += 1;
      this.#finished = false;
      this.#start(items);
      if (!this.#finished) break;
    }
    this.#looping = false;
  }

  #start(items: readonly Intake[]): void {
    const first = items.find(this.#slots.isCurrent);
    if (!this.#slots.accepting() || first === undefined) {
      this.#finished = true;
      return;
    }
    this.#items = items;
    this.#partition = first.partition;
    this.#counted = true;
    this.#slots.count(this.#partition, +1);
    this.#attempt();
  }

  #attempt(): void {
    this.#step = undefined;
    const { isCurrent } = this.#slots;
    const held = this.#items.every(isCurrent) ? this.#items : this.#items.filter(isCurrent);
    if (!this.#slots.accepting() || held.length === 0) {
      this.#finish();
      return;
    }
    const { ledger, scheduler, logger, deferMs } = this.#slots;
    if (ledger === undefined) {
      this.#run(held, false);
      return;
    }
    this.#keep(admitByLedger(held, { ledger, now: scheduler.now(), logger, retryInMs: deferMs }).subscribe((admission) => this.#admitted(admission)));
  }

  #admitted(admission: Admission<GatewayEvent>): void {
    if (admission.deferred) {
      this.#deferred();
      return;
    }
    const { instruments = noInstruments } = this.#slots.turn;
    if (admission.done > 0) instruments.events("duplicate", admission.done);
    if (admission.exhausted > 0) instruments.events("dropped", admission.exhausted);
    for (let i = 0; i < admission.recovered; i++) instruments.turnRecovered();
    if (admission.run.length === 0) {
      this.#finish();
      return;
    }
    this.#run(admission.run, admission.marked);
  }

  #run(items: readonly Intake[], marked: boolean): void {
    // A turn under way keeps its events if the partition moves (a lease lost to a stalled renew):
    // handed back, the next owner would run them while this turn still sends. The turn acks them.
    for (const item of items) item.message.claim();
    this.#claimed = items;
    const messages = items.map(messageOf);
    // The cap's summary lines go with the batch's first turn only.
    const dropped = this.#next === 1 ? this.#batch.summary : NO_SUMMARY;
    const turn = this.#turnNumber;
    const receivedAt = (items[0] as Intake).receivedAt; // the oldest: items are in arrival order
    const shape = this.#slots.batching
      ? { dropped, marked, receivedAt, batch: { laneKey: this.#laneKey, receivedAt: items.map(receivedAtOf) } }
      : { dropped, marked, receivedAt };
    const run = runTurn(messages, shape, this.#slots.turn, (end: TurnEnd) => (end === "deferred" ? this.#deferred() : this.#settled()));
    // Kept only while this turn still runs: one that finished within the call may have started the next.
    if (this.#turnNumber === turn) this.#keep(run);
  }

  /** What cancels the step running now; nothing to keep for one that already finished. */
  #keep(step: Unsubscribable): void {
    if (step instanceof Subscription && step.closed) return;
    this.#step = step;
  }

  /** The turn acked its events: nothing of it is left to hand back. */
  #settled(): void {
    this.#claimed = NO_ITEMS;
    this.#finish();
  }

  #deferred(): void {
    this.#step = this.#slots.scheduler.schedule(() => this.#attempt(), this.#slots.deferMs);
  }

  #finish(): void {
    this.#step = undefined;
    this.#handBack();
    this.#uncount();
    this.#turnNumber += 1;
    this.#finished = true;
    if (!this.#looping) this.#loop();
  }

  /** Cancels what runs (the worker stopping): the turn no longer counts as running, and `done` is not told. */
  unsubscribe(): void {
    this.#closed = true;
    this.#step?.unsubscribe();
    this.#step = undefined;
    this.#handBack();
    this.#uncount();
  }

  /** The claimed events the turn did not settle (cancelled, or its partition gone while deferred) go back to the bus. */
  #handBack(): void {
    if (this.#claimed.length === 0) return;
    const delayMs = this.#slots.turn.bus.handBackDelayMs ?? 0;
    for (const { message } of this.#claimed) message.nak(delayMs);
    this.#claimed = NO_ITEMS;
  }

  /** Once per turn, whether it finished or its lane was cancelled. */
  #uncount(): void {
    if (!this.#counted) return;
    this.#counted = false;
    this.#slots.count(this.#partition, -1);
  }
}

const NO_SUMMARY: readonly string[] = Object.freeze([]);
const NO_ITEMS: readonly Intake[] = Object.freeze([]);

const messageOf = (item: Intake) => item.message;
const receivedAtOf = (item: Intake) => item.receivedAt;

/** A batch's items as turns: consecutive human messages together, control commands and proactive events alone. */
function turnsOf(items: readonly Intake[]): (readonly Intake[])[] {
  if (items.length === 1) return [items];
  const alone = (item: Intake) => item.message.data.proactive === true || isControlCommand(item.message.data.content.text);
  const turns: Intake[][] = [];
  for (const item of items) {
    const last = turns[turns.length - 1];
    if (alone(item) || last === undefined || alone(last[0] as Intake)) turns.push([item]);
    else last.push(item);
  }
  return turns;
}
