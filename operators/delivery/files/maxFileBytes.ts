const MB = 1000 * 1000;
const MIB = 1024 * 1024;

/**
 * The largest file each platform takes from a bot: Telegram's Bot API 50 MB for any file, Discord
 * 10 MiB (a server without boosts), Slack 1 GiB; a platform behind the OpenAB gateway 8 MiB,
 * because there the file travels inline, base64, in one WebSocket frame.
 */
const PLATFORM_LIMITS: ReadonlyMap<string, number> = new Map([
  ["telegram", 50 * MB],
  ["discord", 10 * MIB],
  ["slack", 1024 * MIB],
]);
const GATEWAY_LIMIT = 8 * MIB;

/** Telegram sends a picture as a photo only up to 10 MB; a bigger one goes as a document. */
export const TELEGRAM_PHOTO_BYTES = 10 * MB;

/**
 * The largest file a turn may send to `platform`: the platform's own limit, or
 * `[delivery] max_file_bytes` when that is lower.
 */
export function maxFileBytes(platform: string, configured: number | undefined): number {
  // A Map, not an object: a platform name is the gateway's, and `constructor` must not find a function.
  const own = PLATFORM_LIMITS.get(platform) ?? GATEWAY_LIMIT;
  return configured === undefined ? own : Math.min(own, configured);
}
