/**
 * What one read-decide-write step over a stored record decided: its `result`, and the record to
 * store after it (`null`: remove the key; absent: leave it as it is). Pure steps keep a store's
 * rules testable without a store; the KV stores run them in a compare-and-set loop.
 */
export interface RecordStep<T, R> {
  readonly result: R;
  readonly next?: T | null;
}
