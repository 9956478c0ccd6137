import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** What a request's credentials came to: none given, given but not right, or right. */
export type CredentialCheck = "missing" | "malformed" | "wrong" | "ok";

const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;
const SHA256_PREFIX = "sha256=";

/**
 * The HMAC-SHA256 digest a signature header carries: 64 hex digits, optionally after `sha256=`
 * (GitHub's `X-Hub-Signature-256` form); undefined for anything else (a repeated header too).
 */
export function signatureDigest(header: string | readonly string[] | undefined): Buffer | undefined {
  if (typeof header !== "string") return undefined;
  const value = header.trim();
  const hex = value.slice(0, SHA256_PREFIX.length).toLowerCase() === SHA256_PREFIX ? value.slice(SHA256_PREFIX.length) : value;
  return HEX_DIGEST.test(hex) ? Buffer.from(hex, "hex") : undefined;
}

/** Whether the header carries a digest at all (checked before the body is read), and then its form. */
export function signatureHeaderCheck(header: string | readonly string[] | undefined): CredentialCheck {
  if (header === undefined || header === "") return "missing";
  return signatureDigest(header) === undefined ? "malformed" : "ok";
}

/**
 * Whether `header` signs `body` with `secret`: HMAC-SHA256 over the raw bytes as they arrived,
 * compared with `timingSafeEqual` (both digests are 32 bytes, so the comparison's time says
 * nothing of where they differ).
 */
export function signatureCheck(body: Buffer, secret: string, header: string | readonly string[] | undefined): CredentialCheck {
  const given = signatureDigest(header);
  if (given === undefined) return signatureHeaderCheck(header);
  const expected = createHmac("sha256", secret).update(body).digest();
  return timingSafeEqual(given, expected) ? "ok" : "wrong";
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Whether an `Authorization` header carries `Bearer <secret>`. The token and the secret are each
 * hashed first, so the comparison takes the same time whatever their lengths and wherever they differ.
 */
export function bearerCheck(authorization: string | undefined, secret: string): CredentialCheck {
  if (authorization === undefined || authorization === "") return "missing";
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined) return "malformed";
  return timingSafeEqual(sha256(token), sha256(secret)) ? "ok" : "wrong";
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
