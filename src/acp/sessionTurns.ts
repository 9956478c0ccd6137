/** A prompt turn on a session: the owner its updates go to while it runs, and whether it was cancelled. */
export interface Turn<Owner> {
  readonly sessionId: string;
  readonly owner: Owner;
  cancelled: boolean;
}

/** Why an update no running turn owns is dropped: before any prompt of the session, or after its turn settled. */
export type DropReason = "no_turn" | "late_update";

/** Where a session update goes: to the running turn's owner, or dropped (logged as warn or debug). */
export type UpdateRoute<Owner> = { readonly owner: Owner } | { readonly drop: { readonly reason: DropReason; readonly warn: boolean } };

interface PromptedSession<Owner> {
  /** The session's prompts sent and not answered yet, oldest first. */
  readonly unanswered: Turn<Owner>[];
  /** Whether a late update was warned about since the session's last turn began. */
  lateWarned: boolean;
}

/**
 * Which turn owns a session's updates. A session has at most one running turn; an update goes to
 * it only while it is the session's oldest unanswered prompt (while an abandoned prompt before it
 * is still unanswered, the agent is still on that one). Anything else is dropped, never delivered
 * to a later turn: `no_turn` before any prompt of the session (routine, e.g. commands advertised
 * after `session/new`: debug), `late_update` after one (ACP requires every update before the
 * answer; warned once per turn, then debug).
 */
export class SessionTurns<Owner> {
  /** The session's running turn: the one its updates belong to. */
  readonly #running = new Map<string, Turn<Owner>>();
  readonly #prompted = new Map<string, PromptedSession<Owner>>();

  /** Opens a turn on the session, or `undefined` if one is already running there. */
  open(sessionId: string, owner: Owner): Turn<Owner> | undefined {
    if (this.#running.has(sessionId)) return undefined;
    const turn: Turn<Owner> = { sessionId, owner, cancelled: false };
    this.#running.set(sessionId, turn);
    const session = this.#prompted.get(sessionId) ?? { unanswered: [], lateWarned: false };
    this.#prompted.set(sessionId, session);
    session.unanswered.push(turn);
    session.lateWarned = false;
    return turn;
  }

  /** From now on, the session's updates are no longer this turn's. */
  detach(turn: Turn<Owner>): void {
    if (this.#running.get(turn.sessionId) === turn) this.#running.delete(turn.sessionId);
  }

  /**
   * The agent answered the turn's prompt (or never will). Older prompts still unanswered are over
   * too: the agent has moved past them. Detaches the turn.
   */
  answered(turn: Turn<Owner>): void {
    const session = this.#prompted.get(turn.sessionId);
    if (session !== undefined) session.unanswered.splice(0, session.unanswered.indexOf(turn) + 1);
    this.detach(turn);
  }

  /** Marks the session's running turn, if any, as cancelled. */
  markCancelled(sessionId: string): void {
    const turn = this.#running.get(sessionId);
    if (turn !== undefined) turn.cancelled = true;
  }

  /** The owner of the session's running turn, if one runs (no side effects, unlike `route`). */
  owner(sessionId: string): Owner | undefined {
    return this.#running.get(sessionId)?.owner;
  }

  isCancelled(sessionId: string): boolean {
    return this.#running.get(sessionId)?.cancelled === true;
  }

  /** Where an update of the session goes now. A `late_update` drop is `warn` only for the first since the session's last turn began. */
  route(sessionId: string): UpdateRoute<Owner> {
    const turn = this.#running.get(sessionId);
    const session = this.#prompted.get(sessionId);
    if (turn !== undefined && session?.unanswered[0] === turn) return { owner: turn.owner };
    if (session === undefined) return { drop: { reason: "no_turn", warn: false } };
    const warn = !session.lateWarned;
    session.lateWarned = true;
    return { drop: { reason: "late_update", warn } };
  }
}
