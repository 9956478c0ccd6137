import type { IncomingHttpHeaders } from "node:http";

/** The subnets Telegram posts webhooks from (core.telegram.org/bots/webhooks), as `[network, prefix length]`. */
const TELEGRAM_SUBNETS: readonly (readonly [string, number])[] = [
  ["149.154.160.0", 20],
  ["91.108.4.0", 22],
];

/** Whether `address` (dotted IPv4, or IPv4 mapped into IPv6) lies in one of Telegram's webhook subnets. */
export function isTelegramAddress(address: string): boolean {
  const ip = ipv4(address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address);
  if (ip === undefined) return false;
  return TELEGRAM_SUBNETS.some(([network, bits]) => {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    return ((ip & mask) >>> 0) === ((ipv4(network)! & mask) >>> 0);
  });
}

/**
 * Where a webhook request comes from, as OpenAB reads it behind a proxy: `CF-Connecting-IP`, else
 * `X-Real-IP`, else the first `X-Forwarded-For` hop, else (turnstream's addition, for a listener
 * Telegram reaches directly) the connection's own peer. The headers are the proxy's word: without
 * a proxy that sets them, a client can forge them.
 */
export function sourceAddress(headers: IncomingHttpHeaders, peer: string | undefined): string {
  const first = (name: string) => {
    const value = headers[name];
    return (Array.isArray(value) ? value[0] : value)?.trim();
  };
  return first("cf-connecting-ip") || first("x-real-ip") || first("x-forwarded-for")?.split(",")[0]?.trim() || peer || "";
}

/** A dotted-quad IPv4 address as an unsigned 32-bit number, or undefined. */
function ipv4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}
