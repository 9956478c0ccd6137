import { setTimeout as sleep } from "node:timers/promises";
import type { CallLog } from "./callLog.js";
import { DiscordApiError, invalidFormBody, invalidJson, methodNotAllowed, notFound, unauthorized } from "./discordApiError.js";
import type { FailureInjection } from "./failureInjection.js";
import { FormErrors, notSnowflake } from "./formErrors.js";
import type { RestAnswer, RestRequest } from "./httpServer.js";
import type { RateLimits } from "./rateLimits.js";
import { isSnowflake } from "./snowflakes.js";

/** A file a multipart request uploaded as `files[n]`. */
export interface UploadedFile {
  readonly field: string;
  readonly filename: string;
  readonly contentType: string;
  readonly bytes: Uint8Array;
}

export interface RouteArgs {
  /** Path parameters by the docs' names, decoded: `channel.id`, `message.id`, … (`emoji` still URL-encoded). */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The JSON body, or a multipart body's payload_json; undefined when there was none. */
  readonly json: unknown;
  readonly files: readonly UploadedFile[];
  /** A multipart body's text fields other than payload_json, by name (a file part sent without a filename is one). */
  readonly textFields: readonly string[];
}

export interface RouteResult {
  readonly status: 200 | 204;
  readonly body?: unknown;
}

/** One endpoint: its name in Discord's docs (camelCased), method and path template. */
export interface Route {
  readonly name: string;
  readonly method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** `/channels/{channel.id}/messages/{message.id}`; a `{x.id}` segment must be a snowflake. */
  readonly path: string;
  /** False for the routes an interaction token authorizes (callback, @original): no bot token needed. */
  readonly auth?: false;
  handle(args: RouteArgs): RouteResult | Promise<RouteResult>;
}

export interface RouterContext {
  readonly routes: readonly Route[];
  readonly log: CallLog;
  readonly failures: FailureInjection;
  readonly rateLimits: RateLimits;
  readonly now: () => number;
  /** Whether an Authorization header carries the bot's token (and it is not revoked). */
  authorized(header: string | undefined): boolean;
}

/**
 * The REST side's order of checks, as Discord answers: unknown path 404, wrong method 405, token 401, a path
 * id that is not a snowflake 50035, then what a test injected (a delay, a failure), the route's rate limit,
 * the body (invalid JSON 50109) and finally the route's own checks.
 */
export async function answerRest(context: RouterContext, request: RestRequest): Promise<RestAnswer> {
  const found = findRoute(context.routes, request.method, request.path);
  const body = await readBody(request).catch((error: unknown) => error as DiscordApiError);
  const call = context.log.record({
    route: found && !("methodNotAllowed" in found) ? found.route.name : `${request.method} ${request.path}`,
    method: request.method,
    path: request.path,
    params: found && !("methodNotAllowed" in found) ? decodedParams(found.params) : {},
    query: Object.fromEntries(request.query),
    body: body instanceof DiscordApiError ? undefined : body.json,
    files: body instanceof DiscordApiError ? [] : body.files.map((file) => file.filename),
    userAgent: header(request, "user-agent"),
    auditLogReason: header(request, "x-audit-log-reason"),
    at: context.now(),
  });
  let answer: RestAnswer;
  try {
    if (!found) throw notFound();
    if ("methodNotAllowed" in found) throw methodNotAllowed();
    const { route, params } = found;
    if (route.auth !== false && !context.authorized(header(request, "authorization"))) throw unauthorized();
    checkSnowflakes(params);
    const delay = context.failures.delayOf(route.name);
    if (delay > 0) await sleep(delay, undefined, { signal: request.gone }).catch(() => undefined);
    const injected = context.failures.takeFailure(route.name, context.now());
    if (injected) throw injected;
    const limitHeaders = context.rateLimits.take(route.name, majorParameter(params));
    if (body instanceof DiscordApiError) throw body;
    const result = await route.handle({ params, query: request.query, json: body.json, files: body.files, textFields: body.textFields });
    answer = { status: result.status, body: result.body, headers: limitHeaders };
  } catch (error) {
    if (!(error instanceof DiscordApiError)) throw error;
    answer = { status: error.status, body: error.body, headers: error.headers };
  }
  const refusal = answer.status >= 400 ? (answer.body as { code?: number; message?: string }) : undefined;
  Object.assign(call, { answeredAt: context.now(), status: answer.status, code: refusal?.code, message: refusal?.message, result: refusal ? undefined : answer.body });
  return answer;
}

type Found = { route: Route; params: Record<string, string> } | { methodNotAllowed: true };

function findRoute(routes: readonly Route[], method: string, path: string): Found | undefined {
  const segments = path.split("/").slice(1);
  let pathMatched = false;
  // Literal segments first, so /users/@me is not read as /users/{user.id}.
  const ordered = [...routes].sort((a, b) => literalCount(b.path) - literalCount(a.path));
  for (const route of ordered) {
    const params = match(route.path, segments);
    if (!params) continue;
    if (route.method === method.toUpperCase()) return { route, params };
    pathMatched = true;
  }
  return pathMatched ? { methodNotAllowed: true } : undefined;
}

function match(template: string, segments: readonly string[]): Record<string, string> | undefined {
  const parts = template.split("/").slice(1);
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const segment = segments[i]!;
    if (part.startsWith("{") && part.endsWith("}")) {
      if (segment === "") return undefined;
      const name = part.slice(1, -1);
      // An emoji is read raw (it must arrive URL-encoded); every other parameter decoded.
      params[name] = name === "emoji" ? segment : safeDecode(segment);
    } else if (part !== segment && part !== safeDecode(segment)) return undefined; // clients send @me as %40me
  }
  return params;
}

const literalCount = (template: string) => template.split("/").filter((part) => part !== "" && !part.startsWith("{")).length;

/** A path id that is not a snowflake: 50035 under the field's name (`channel_id`). */
function checkSnowflakes(params: Readonly<Record<string, string>>): void {
  const errors = new FormErrors();
  for (const [name, value] of Object.entries(params)) {
    if (name.endsWith(".id") && !isSnowflake(value)) errors.add([name.replace(".", "_")], notSnowflake(value));
  }
  errors.throwIfAny();
}

/** The top-level resource rate limits are kept per: a channel, a guild, or a webhook with its token. */
function majorParameter(params: Readonly<Record<string, string>>): string | undefined {
  return params["channel.id"] ?? params["guild.id"] ?? (params["application.id"] && params["interaction.token"] ? `${params["application.id"]}/${params["interaction.token"]}` : undefined);
}

function decodedParams(params: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).map(([name, value]) => [name, safeDecode(value)]));
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function header(request: RestRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The body as Discord reads it: JSON (application/json), or multipart/form-data with `payload_json` and
 * `files[n]` (each route checks the parts it takes: `readUploads`). Invalid JSON is 50109; a body of
 * another type is 50035, as the docs' 50035 says.
 */
async function readBody(request: RestRequest): Promise<{ json: unknown; files: UploadedFile[]; textFields: string[] }> {
  if (request.body.length === 0 || request.method === "GET") return { json: undefined, files: [], textFields: [] };
  const contentType = header(request, "content-type") ?? "";
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (type === "application/json") return { json: parseJson(request.body.toString("utf8")), files: [], textFields: [] };
  if (type === "multipart/form-data") {
    const form = await new Response(new Uint8Array(request.body), { headers: { "content-type": contentType } }).formData().catch(() => {
      throw invalidFormBody({ _errors: [{ code: "CONTENT_TYPE_INVALID", message: "Could not parse the multipart/form-data body." }] });
    });
    const files: UploadedFile[] = [];
    const textFields: string[] = [];
    let json: unknown;
    for (const [field, value] of form) {
      if (field === "payload_json" && typeof value === "string") json = parseJson(value);
      else if (typeof value !== "string") files.push({ field, filename: value.name, contentType: value.type || "application/octet-stream", bytes: new Uint8Array(await value.arrayBuffer()) });
      else textFields.push(field);
    }
    return { json, files, textFields };
  }
  throw invalidFormBody({ _errors: [{ code: "CONTENT_TYPE_INVALID", message: `Expected "Content-Type" header to be one of {'application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'}.` }] });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalidJson();
  }
}
