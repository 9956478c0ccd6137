import { DateTime } from "luxon";
import { idHash } from "./idHash.js";
import { quietHoursContain } from "./quietHours.js";
import { SeenWindow, type SeenWork, SMALL_WINDOW } from "./seenWindow.js";
import { checkTimezone, type TriageSettings } from "./triageSettings.js";
import { EMPTY_TRIAGE_STATE, type TriageState } from "./triageState.js";
import { cooldownVerdict, dailyCapVerdict, DUPLICATE, QUIET_HOURS, type TriageVerdict, WAKE } from "./triageVerdict.js";

/** A verdict and the conversation's state after it (to write back, even when suppressed). */
export interface Admission {
  readonly verdict: TriageVerdict;
  readonly state: TriageState;
}

/**
 * Triages one proactive event of one conversation (delivery-and-triage.md §13.4), rules in order:
 * duplicate → quiet hours → cooldown → daily cap → wake. Pure: `nowMs` is the caller's clock
 * (the scheduler's), `state` is what the store holds for the event's `triageKey`.
 *
 * - The id is recorded even when a later rule suppresses; an empty id is never deduplicated.
 *   Ids are remembered as whole seconds, so an id lives at most 999 ms past its window, never less.
 * - Only a wake consumes the daily allowance and restarts the cooldown.
 * - A clock that moved backwards counts as zero elapsed; the day is the calendar date in
 *   `settings.timezone`, so the count rolls over at local midnight.
 *
 * - O(1) per decision in remembered ids (amortised): the state's window stays decoded between
 *   decisions on the states `admit` returned (`seenWindow.ts`); `work` counts the ids touched.
 *
 * Throws TriageSettingsError for a timezone luxon does not know.
 */
export function admit(state: TriageState | undefined, eventId: string, settings: TriageSettings, nowMs: number, work: SeenWork = { entries: 0 }): Admission {
  const current = state ?? EMPTY_TRIAGE_STATE;
  if (!settings.enabled) return { verdict: WAKE, state: current };
  let next = current;
  let window: SeenWindow | undefined;

  if (settings.dedupeWindowSecs > 0) {
    const nowSec = Math.floor(nowMs / 1000);
    window = takeWindow(current, settings.dedupeWindowSecs, work);
    // "Strictly older than the window" is dropped: an entry exactly the window old still counts.
    window.expire(nowSec - settings.dedupeWindowSecs, work);
    const hash = eventId === "" ? undefined : idHash(eventId);
    if (hash !== undefined && window.has(hash, work)) return { verdict: DUPLICATE, state: keep(withSeen(current, window), window) };
    if (hash !== undefined) window.add(hash, nowSec, work);
    next = withSeen(current, window);
  }

  const local = DateTime.fromMillis(nowMs, { zone: settings.timezone });
  if (!local.isValid) checkTimezone(settings.timezone);

  if (settings.quietHours !== undefined && quietHoursContain(settings.quietHours, local.hour * 60 + local.minute)) {
    return { verdict: QUIET_HOURS, state: keep(next, window) };
  }

  if (settings.cooldownSecs > 0 && next.lastWakeMs !== undefined) {
    const elapsed = Math.max(0, Math.trunc((nowMs - next.lastWakeMs) / 1000));
    if (elapsed < settings.cooldownSecs) return { verdict: cooldownVerdict(settings.cooldownSecs - elapsed), state: keep(next, window) };
  }

  const today = local.toISODate() as string;
  const wokeToday = next.day === today ? next.count : 0;
  if (settings.dailyCap > 0 && wokeToday >= settings.dailyCap) return { verdict: dailyCapVerdict(settings.dailyCap), state: keep(next, window) };

  return { verdict: WAKE, state: keep({ ...next, lastWakeMs: nowMs, day: today, count: wokeToday + 1 }, window) };
}

// A decoded window per state `admit` returned, so the next decision on that state neither decodes
// nor re-packs it. An index costs ~80 B per id (a busy window of 1,000: ~80 KB), so only windows of
// `SMALL_WINDOW` ids or more get one, and only the `MAX_WINDOWS` most recently used keep theirs:
// smaller windows are decoded each time (bounded work), and a conversation whose index was evicted,
// or whose state another worker wrote, decodes once and is cached again.
const windows = new Map<TriageState, SeenWindow>();
const MAX_WINDOWS = 512;

/** `state`'s window, now owned by the caller (a state passed to `admit` again decodes afresh). */
function takeWindow(state: TriageState, windowSecs: number, work: SeenWork): SeenWindow {
  const cached = windows.get(state);
  if (cached !== undefined && cached.windowSecs === windowSecs) {
    windows.delete(state);
    return cached;
  }
  return SeenWindow.decode(state.seen, windowSecs, work);
}

/** `state`, remembering `window` as its decoded form when that is worth the heap. */
function keep(state: TriageState, window: SeenWindow | undefined): TriageState {
  if (window !== undefined && window.size >= SMALL_WINDOW) {
    window.settle();
    windows.delete(state);
    windows.set(state, window);
    if (windows.size > MAX_WINDOWS) windows.delete(windows.keys().next().value as TriageState);
  }
  return state;
}

function withSeen(state: TriageState, window: SeenWindow): TriageState {
  if (!window.changed) return state;
  const packed = window.packed();
  const { seen: _dropped, ...rest } = state;
  return packed === undefined ? rest : { seen: packed, ...rest };
}
