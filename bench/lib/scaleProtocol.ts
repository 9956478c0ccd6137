/** Parent → scale worker. */
export type WorkerCommand = { readonly kind: "gate"; readonly open: boolean } | { readonly kind: "stop" };

/** Scale worker → parent. `lastNs`: monotonic clock at this worker's latest settle. */
export type WorkerReport =
  | { readonly kind: "ready"; readonly pid: number }
  | { readonly kind: "settled"; readonly count: number; readonly lastNs: string }
  | { readonly kind: "stopped" };
