import { DateTime } from "luxon";
import { idHash } from "./idHash.js";
import { quietHoursContain } from "./quietHours.js";
import { MAX_SEEN, packSeen, type SeenEntry, unpackSeen } from "./seenIds.js";
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
 * Throws TriageSettingsError for a timezone luxon does not know.
 */
export function admit(state: TriageState | undefined, eventId: string, settings: TriageSettings, nowMs: number): Admission {
  const current = state ?? EMPTY_TRIAGE_STATE;
  if (!settings.enabled) return { verdict: WAKE, state: current };
  let next = current;

  if (settings.dedupeWindowSecs > 0) {
    const nowSec = Math.floor(nowMs / 1000);
    // "Strictly older than the window" is dropped: an entry exactly the window old still counts.
    const cutoff = nowSec - settings.dedupeWindowSecs;
    const seen = (unpackSeen(current.seen) ?? []).filter((entry) => entry.atSec >= cutoff);
    const hash = eventId === "" ? undefined : idHash(eventId);
    if (hash !== undefined && seen.some((entry) => entry.hash === hash)) return { verdict: DUPLICATE, state: withSeen(current, seen) };
    if (hash !== undefined) seen.push({ hash, atSec: nowSec });
    next = withSeen(current, seen.slice(-MAX_SEEN));
  }

  const local = DateTime.fromMillis(nowMs, { zone: settings.timezone });
  if (!local.isValid) checkTimezone(settings.timezone);

  if (settings.quietHours !== undefined && quietHoursContain(settings.quietHours, local.hour * 60 + local.minute)) {
    return { verdict: QUIET_HOURS, state: next };
  }

  if (settings.cooldownSecs > 0 && next.lastWakeMs !== undefined) {
    const elapsed = Math.max(0, Math.trunc((nowMs - next.lastWakeMs) / 1000));
    if (elapsed < settings.cooldownSecs) return { verdict: cooldownVerdict(settings.cooldownSecs - elapsed), state: next };
  }

  const today = local.toISODate() as string;
  const wokeToday = next.day === today ? next.count : 0;
  if (settings.dailyCap > 0 && wokeToday >= settings.dailyCap) return { verdict: dailyCapVerdict(settings.dailyCap), state: next };

  return { verdict: WAKE, state: { ...next, lastWakeMs: nowMs, day: today, count: wokeToday + 1 } };
}

function withSeen(state: TriageState, seen: readonly SeenEntry[]): TriageState {
  const packed = packSeen(seen);
  if (packed === state.seen) return state;
  const { seen: _dropped, ...rest } = state;
  return packed === undefined ? rest : { seen: packed, ...rest };
}
