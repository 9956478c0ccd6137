import * as z from "zod";
import { parseJsonPointer, JsonPointerError } from "../../../operators/ingress/webhook/jsonPointer.js";
import { parsePromptTemplate, PromptTemplateError } from "../../../operators/ingress/webhook/promptTemplate.js";
import { choice } from "../choice.js";
import { hostPort, int, nonEmptyString, notAllowed } from "../fields.js";
import { expecting } from "../problems/expected.js";
import { printValue } from "../problems/printValue.js";

/**
 * `[webhooks]`: signed HTTP endpoints whose POSTs become proactive turns. TOML cannot hold a
 * `[webhooks]` table and a `[[webhooks]]` array at once, so the endpoints are
 * `[[webhooks.endpoints]]` under the listener's table.
 */

export const DEFAULT_WEBHOOKS_LISTEN = "127.0.0.1:8790";
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** The largest body a `max_body_bytes` may allow: the body is read into memory whole before its signature is checked. */
export const MAX_BODY_BYTES_CEILING = 64 * 1024 * 1024;
/** GitHub's header: `sha256=<hex>` of the body's HMAC-SHA256. */
export const DEFAULT_SIGNATURE_HEADER = "X-Hub-Signature-256";
/** A rate beyond this would need a window too large to keep per endpoint. */
export const MAX_RATE_PER_MINUTE = 10_000;
/** The shortest secret: guessable secrets make the signature worth nothing. */
export const MIN_SECRET_CHARS = 16;

export type WebhookAuth = "hmac" | "bearer";

/** One `[[webhooks.endpoints]]`, resolved: `name` defaults to the path, `signature_header` is set with hmac only. */
export interface WebhookEndpointConfig {
  readonly name: string;
  readonly path: string;
  readonly auth: WebhookAuth;
  /** HMAC key, or the bearer token (secret). */
  readonly secret: string;
  readonly signature_header?: string;
  readonly platform: string;
  readonly channel: string;
  readonly thread_id?: string;
  readonly event_id_header?: string;
  readonly event_id_pointer?: string;
  readonly prompt?: string;
  readonly rate_per_minute: number;
  /** Unset: `[webhooks] max_body_bytes`. */
  readonly max_body_bytes?: number;
}

const PATH = /^\/[A-Za-z0-9._~/-]{0,199}$/;
const pathExpected = 'a path starting with "/", at most 200 characters of A-Z a-z 0-9 . _ ~ / -';
const NAME = /^[A-Za-z0-9._~/-]{1,200}$/;
const nameExpected = "1 to 200 characters of A-Z a-z 0-9 . _ ~ / - (it names the endpoint in event ids and logs)";
// RFC 9110's token: what a header name is made of.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const headerExpected = "an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)";
// A bearer token travels in a header: visible ASCII, no spaces.
const BEARER = /^[\x21-\x7e]+$/;

function matching(pattern: RegExp, expected: string) {
  const schema = z.string().superRefine((value, ctx) => {
    if (!pattern.test(value)) ctx.addIssue({ code: "custom", message: notAllowed(value, expected), input: value });
  });
  return expecting(schema, expected);
}

const secretExpected = `at least ${MIN_SECRET_CHARS} characters (for example from \`openssl rand -hex 32\`)`;

/** The secret: long enough to be worth checking; its problems quote nothing of it (`valueFree`). */
const secret = expecting(
  z.string().superRefine((value, ctx) => {
    if (value === "") ctx.addIssue({ code: "custom", message: `is empty (an unset \${VAR}?); expected ${secretExpected}`, input: value, params: { valueFree: true } });
    else if (value.length < MIN_SECRET_CHARS) ctx.addIssue({ code: "custom", message: `is shorter than ${MIN_SECRET_CHARS} characters (value hidden); expected ${secretExpected}`, input: value, params: { valueFree: true } });
  }),
  secretExpected,
);

const pointerExpected = 'an RFC 6901 JSON pointer such as "/id" ("" for the whole body)';
const jsonPointer = expecting(
  z.string().superRefine((value, ctx) => {
    try {
      parseJsonPointer(value);
    } catch (err) {
      if (!(err instanceof JsonPointerError)) throw err;
      ctx.addIssue({ code: "custom", message: `${printValue(value)} is not allowed; expected ${pointerExpected} (${err.reason})`, input: value });
    }
  }),
  pointerExpected,
);

const templateExpected = 'text with {{<json pointer>}} substitutions, such as "New alert: {{/alert/title}}"';
const promptTemplate = expecting(
  z.string().superRefine((value, ctx) => {
    try {
      parsePromptTemplate(value);
    } catch (err) {
      if (!(err instanceof PromptTemplateError)) throw err;
      ctx.addIssue({ code: "custom", message: `is not a prompt template: ${err.reason}; expected ${templateExpected}`, input: value });
    }
  }),
  templateExpected,
);

const maxBodyBytes = () =>
  expecting(z.int().min(1).max(MAX_BODY_BYTES_CEILING), `an integer from 1 to ${MAX_BODY_BYTES_CEILING} (64 MiB: a body is held in memory whole)`);

const endpointKeys = z.strictObject({
  name: matching(NAME, nameExpected).optional(),
  path: matching(PATH, pathExpected),
  auth: choice({ values: ["hmac", "bearer"] }).default("hmac"),
  secret,
  signature_header: matching(HEADER_NAME, headerExpected).optional(),
  platform: nonEmptyString().transform((platform) => platform.toLowerCase()),
  channel: nonEmptyString(),
  thread_id: nonEmptyString().optional(),
  event_id_header: matching(HEADER_NAME, headerExpected).optional(),
  event_id_pointer: jsonPointer.optional(),
  prompt: promptTemplate.optional(),
  rate_per_minute: int(1, MAX_RATE_PER_MINUTE).default(60),
  max_body_bytes: maxBodyBytes().optional(),
});

type EndpointKeys = z.output<typeof endpointKeys>;

/** One endpoint's keys resolved, each key that would do nothing refused (one issue each). */
function resolveEndpoint(keys: EndpointKeys, ctx: z.core.$RefinementCtx): WebhookEndpointConfig {
  if (keys.auth === "bearer" && keys.signature_header !== undefined) {
    ctx.addIssue({ code: "custom", path: ["signature_header"], input: keys.signature_header, message: 'names where an HMAC signature is read, and auth = "bearer" reads the Authorization header: remove signature_header, or set auth = "hmac"' });
  }
  if (keys.event_id_header !== undefined && keys.event_id_pointer !== undefined) {
    ctx.addIssue({ code: "custom", path: ["event_id_pointer"], input: keys.event_id_pointer, message: "is given beside event_id_header, and both say where the event id is: keep one of them" });
  }
  if (keys.auth === "bearer" && keys.secret !== "" && !BEARER.test(keys.secret)) {
    ctx.addIssue({ code: "custom", path: ["secret"], input: keys.secret, params: { valueFree: true }, message: 'holds a space or a character outside visible ASCII (value hidden), and auth = "bearer" sends it in the Authorization header: use visible ASCII only' });
  }
  const { signature_header: signatureHeader, name, ...rest } = keys;
  return {
    ...rest,
    name: name ?? keys.path,
    ...(keys.auth === "hmac" ? { signature_header: signatureHeader ?? DEFAULT_SIGNATURE_HEADER } : {}),
  };
}

export const webhookEndpoint = endpointKeys.transform(resolveEndpoint);

const webhooksKeys = z.strictObject({
  listen: hostPort().optional(),
  max_body_bytes: maxBodyBytes().optional(),
  endpoints: z.array(webhookEndpoint).default(() => []),
});

type WebhooksKeys = z.output<typeof webhooksKeys>;

export interface WebhooksConfig {
  /** `host:port` the listener binds (only when there are endpoints). */
  readonly listen: string;
  /** The largest body an endpoint reads, unless it sets its own. */
  readonly max_body_bytes: number;
  readonly endpoints: readonly WebhookEndpointConfig[];
}

/** The listener's keys mean nothing without an endpoint to serve: set there, they are refused. */
function resolveWebhooks(keys: WebhooksKeys, ctx: z.core.$RefinementCtx): WebhooksConfig {
  if (keys.endpoints.length === 0) {
    for (const key of ["listen", "max_body_bytes"] as const) {
      if (keys[key] !== undefined) ctx.addIssue({ code: "custom", path: [key], input: keys[key], message: "is for the webhook listener, which runs only with [[webhooks.endpoints]]: add an endpoint, or remove the key" });
    }
  }
  return { listen: keys.listen ?? DEFAULT_WEBHOOKS_LISTEN, max_body_bytes: keys.max_body_bytes ?? DEFAULT_MAX_BODY_BYTES, endpoints: keys.endpoints };
}

export const webhooksSection = webhooksKeys.transform(resolveWebhooks).prefault({});
