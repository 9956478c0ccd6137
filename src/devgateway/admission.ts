import { createHash, timingSafeEqual } from "node:crypto";

/** Why the dev gateway refused a request; stable, logged and printed, never carrying the token. */
export type RefusalReason = "host_not_allowed" | "token_missing" | "token_wrong" | "origin_not_allowed";

export type Admission = { readonly admitted: true } | { readonly admitted: false; readonly status: 401 | 403; readonly reason: RefusalReason };

/** What the gateway knows about a request before answering it. */
export interface AdmissionRequest {
  readonly path: string;
  /** A WebSocket upgrade rather than a plain HTTP request. */
  readonly upgrade: boolean;
  readonly host: string | undefined;
  readonly origin: string | undefined;
  /** The `?token=` query parameter, decoded; undefined when absent. */
  readonly token: string | undefined;
}

export interface AdmissionPolicy {
  readonly token: string;
  /** Host names (lower case, IPv6 in brackets, no port) a `Host` header may name. */
  readonly allowedHosts: ReadonlySet<string>;
}

/** The names a loopback client reaches the gateway by; any other name may be a DNS-rebinding page. */
export const loopbackHosts: readonly string[] = ["127.0.0.1", "localhost", "[::1]"];

const admitted: Admission = { admitted: true };

/**
 * Whether to serve a request, in the order that leaks least: a `Host` the gateway does not answer
 * to (DNS rebinding) is refused before anything else; then every path, `/health` included, needs
 * the token (nothing answers a page that does not hold it); a WebSocket upgrade must then come from no
 * page (brokers send no `Origin`) or the gateway's own page — and `/ui`, the page's socket, only
 * from the gateway's own page.
 */
export function admission(request: AdmissionRequest, policy: AdmissionPolicy): Admission {
  const host = hostOf(request.host);
  if (host === undefined || !policy.allowedHosts.has(host.hostname)) return { admitted: false, status: 403, reason: "host_not_allowed" };
  if (request.token === undefined) return { admitted: false, status: 401, reason: "token_missing" };
  if (!tokensEqual(request.token, policy.token)) return { admitted: false, status: 401, reason: "token_wrong" };
  if (!request.upgrade) return admitted;
  const pageOnly = request.path === "/ui";
  if (request.origin === undefined ? pageOnly : !sameOrigin(request.origin, host.host)) {
    return { admitted: false, status: 403, reason: "origin_not_allowed" };
  }
  return admitted;
}

/** Equal-length digests, so the comparison takes the same time whatever the presented token is. */
export function tokensEqual(presented: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/**
 * A `Host` header as the URL parser normalises it (`hostname` lower case, IPv6 in brackets; `host`
 * with the port unless it is 80). The port is not checked: a tunnel (`ssh -L 9000:…`) changes it
 * and a rebinding page cannot choose a name the gateway answers to.
 */
function hostOf(header: string | undefined): { hostname: string; host: string } | undefined {
  if (header === undefined || header === "" || /[/?#@\\\s]/.test(header)) return undefined;
  try {
    const url = new URL(`http://${header}`);
    return { hostname: url.hostname, host: url.host };
  } catch {
    return undefined;
  }
}

/** The page's own origin: `http:` (the gateway serves nothing else) and the very host and port asked for. */
function sameOrigin(origin: string, host: string): boolean {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" && url.host === host && origin === url.origin;
  } catch {
    return false;
  }
}

/** A configured host name as `Host` headers are compared: lower case, IPv6 in brackets. */
export function normalizedHostName(name: string): string {
  const bracketed = name.includes(":") && !name.startsWith("[") ? `[${name}]` : name;
  return new URL(`http://${bracketed}`).hostname;
}

/** The body of a refused plain request: what to do, never the token. */
export function refusalBody(verdict: Extract<Admission, { admitted: false }>): string {
  return verdict.status === 401
    ? `unauthorized (${verdict.reason}): open the page URL the dev gateway printed; it carries ?token=\n`
    : `forbidden (${verdict.reason})\n`;
}
