/** Where a broker is in its life, as readiness sees it. */
export type BrokerPhase = "starting" | "running" | "draining" | "stopped";

/** What `/readyz` judges: the broker's phase and, per role, the connections its work needs. */
export interface ReadinessView {
  readonly phase: BrokerPhase;
  /** Connected to the bus (always, on the embedded bus). */
  readonly bus: boolean;
  /** The edge's platform ports (`gateway`, `telegram`, …) and whether each is connected; none where this process holds none. */
  readonly ports?: readonly { readonly name: string; readonly connected: boolean }[];
  /** The worker's partitions; absent where this process runs no turns. `share` is undefined until the lease table was read. */
  readonly partitions?: { readonly owned: number; readonly share: number | undefined };
}

/**
 * What a process lacks to do its work: `broker` (starting, draining or stopped), `bus`,
 * `partitions`, or a platform port by its name (`gateway`, `telegram`, …).
 */
export type Missing = "broker" | "bus" | "partitions" | (string & {});

export interface Readiness {
  readonly ready: boolean;
  readonly phase: BrokerPhase;
  readonly missing: readonly Missing[];
}

/**
 * Ready only when the role can do its work: the broker running (a draining one is not ready at
 * once), its bus connected, an edge's platform ports connected, and a worker holding at least its share
 * of the partitions (all of them on the embedded bus).
 */
export function readiness(view: ReadinessView): Readiness {
  const missing: Missing[] = [];
  if (view.phase !== "running") missing.push("broker");
  if (!view.bus) missing.push("bus");
  for (const port of view.ports ?? []) if (!port.connected) missing.push(port.name);
  const { partitions } = view;
  if (partitions !== undefined && (partitions.share === undefined || partitions.owned < partitions.share)) missing.push("partitions");
  return { ready: missing.length === 0, phase: view.phase, missing };
}
