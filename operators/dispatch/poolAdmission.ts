/** An idle session the pool may suspend to make room, and when it was last active. */
export interface IdleSession {
  readonly key: string;
  readonly lastActive: number;
}

/** What the session pool knows when a slot may have come free. */
export interface PoolView {
  readonly maxSessions: number;
  /** Slots taken: live sessions, sessions being started, agents still being closed. */
  readonly used: number;
  /** Of those, agents being closed: each frees its slot once its process is gone. */
  readonly closing: number;
  /** Turns waiting for a session, oldest first. */
  readonly waiting: number;
  /** Sessions nobody holds (no turn running, none waiting for the key), in any order. */
  readonly idle: readonly IdleSession[];
}

export interface PoolAdmission {
  /** How many of the oldest waiters get a slot now. */
  readonly grant: number;
  /** Idle sessions to suspend, least recently active first: their slots go to the next waiters. */
  readonly evict: readonly string[];
}

/**
 * The pool's next step, oldest waiter first: free slots go to the waiters at the head of the queue;
 * waiters left over are covered first by agents already closing, then by suspending the least
 * recently active idle sessions (one each). Never grants past `maxSessions`.
 */
export function poolAdmission(view: PoolView): PoolAdmission {
  const grant = Math.min(view.waiting, Math.max(0, view.maxSessions - view.used));
  const uncovered = view.waiting - grant - view.closing;
  if (uncovered <= 0 || view.idle.length === 0) return { grant, evict: [] };
  const evict = [...view.idle]
    .sort((a, b) => a.lastActive - b.lastActive)
    .slice(0, uncovered)
    .map((session) => session.key);
  return { grant, evict };
}
