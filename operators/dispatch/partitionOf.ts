/**
 * The partition a session key belongs to: FNV-1a (32-bit) over the key's UTF-16 code units, mod
 * `partitions`. Every publisher on every bus must agree on this function, so it never changes.
 */
export function partitionOf(key: string, partitions: number): number {
  if (!Number.isInteger(partitions) || partitions < 1) {
    throw new RangeError(`partitions must be a positive integer, got ${partitions}`);
  }
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}
