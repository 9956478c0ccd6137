/** Discord's epoch, the first second of 2015, in ms since the Unix epoch (docs: Reference › Snowflakes). */
export const DISCORD_EPOCH = 1_420_070_400_000;

/**
 * Ids as Discord makes them: ms since DISCORD_EPOCH shifted left 22 bits, then worker, process and an
 * increment. Always strings in the API. They grow with time, so history sorts by id, and a real clock gives
 * the 17–19 digits @discordjs/rest's bucket routes expect (its "old message" delete rule reads the time too).
 */
export class Snowflakes {
  private increment = 0;
  private last = 0n;

  constructor(private readonly now: () => number) {}

  next(): string {
    const ms = BigInt(Math.max(0, Math.floor(this.now()) - DISCORD_EPOCH));
    let id = (ms << 22n) | (1n << 17n) | (1n << 12n) | BigInt(this.increment++ & 0xfff);
    // Several ids in one millisecond, or a clock set back: still strictly increasing.
    if (id <= this.last) id = this.last + 1n;
    this.last = id;
    return String(id);
  }
}

/** A decimal snowflake as paths and bodies must carry it (an unsigned 64-bit integer). */
export function isSnowflake(value: unknown): value is string {
  return typeof value === "string" && /^\d{1,20}$/.test(value) && BigInt(value) < 1n << 64n;
}

/** When a snowflake was made (ms since the Unix epoch). */
export function snowflakeTime(id: string): number {
  return Number(BigInt(id) >> 22n) + DISCORD_EPOCH;
}

/** Discord's ISO 8601 timestamps: microseconds and an explicit offset ("2026-08-06T12:00:00.123000+00:00"). */
export function isoTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace("Z", "000+00:00");
}

/** A snowflake from a request body: a decimal string, or an integer (Discord takes both on input). */
export function readSnowflake(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return String(value);
  return isSnowflake(value) ? value : undefined;
}
