/** A key path into a config: `["delivery", "blocks", "min_chars"]`. */
export type KeyPath = readonly PropertyKey[];

/**
 * Runs `read` over `value` and returns what it returned with the key paths it looked at: every
 * value it took that is not a table (a scalar, an array, an absent key), and every table it listed
 * or probed as a whole. A table it only stepped through is not a read of its own, so a check that
 * reads `gateway.streaming` did not read `gateway.bot_username`. The config loader uses it to drop
 * a cross-key check that read a key whose bad value it had to put aside.
 */
export function withKeyReads<T extends object, R>(value: T, read: (tracked: T) => R): { readonly result: R; readonly reads: readonly KeyPath[] } {
  const reads: KeyPath[] = [];
  const result = read(tracked(value, [], reads));
  return { result, reads };
}

function tracked<T extends object>(table: T, path: KeyPath, reads: KeyPath[]): T {
  return new Proxy(table, {
    get(target, key, receiver) {
      const inner: unknown = Reflect.get(target, key, receiver);
      if (typeof key === "symbol") return inner;
      const at = [...path, key];
      if (isTable(inner)) return tracked(inner, at, reads);
      reads.push(at);
      return inner;
    },
    has(target, key) {
      reads.push(typeof key === "symbol" ? path : [...path, key]);
      return Reflect.has(target, key);
    },
    ownKeys(target) {
      reads.push(path);
      return Reflect.ownKeys(target);
    },
  });
}

/** A plain object (the parsed config's tables); arrays, dates and class instances are values. */
function isTable(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
