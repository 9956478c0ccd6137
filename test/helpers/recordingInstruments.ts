import type { Instruments } from "../../src/metrics/instruments.js";

/** One call made on `Instruments`: the method's name, then its arguments as given. */
export type InstrumentCall = { [K in keyof Instruments]: [K, ...Parameters<Instruments[K]>] }[keyof Instruments];

/**
 * `Instruments` that record every call, in order, as `[method, ...args]` (e.g.
 * `["messageSent", "edit", 0.25]`), so a test can assert exactly what a hook reported.
 */
export function recordingInstruments(): { instruments: Instruments; calls: InstrumentCall[] } {
  const calls: InstrumentCall[] = [];
  const instruments: Instruments = {
    events: (...args) => void calls.push(["events", ...args]),
    triageDecision: (...args) => void calls.push(["triageDecision", ...args]),
    turnSettled: (...args) => void calls.push(["turnSettled", ...args]),
    firstMessage: (...args) => void calls.push(["firstMessage", ...args]),
    messageSent: (...args) => void calls.push(["messageSent", ...args]),
    sendFailed: (...args) => void calls.push(["sendFailed", ...args]),
    sendRetried: (...args) => void calls.push(["sendRetried", ...args]),
    bubbleGap: (...args) => void calls.push(["bubbleGap", ...args]),
    sendShaped: (...args) => void calls.push(["sendShaped", ...args]),
    agentExited: (...args) => void calls.push(["agentExited", ...args]),
    turnRecovered: (...args) => void calls.push(["turnRecovered", ...args]),
    queued: (...args) => void calls.push(["queued", ...args]),
  };
  return { instruments, calls };
}
