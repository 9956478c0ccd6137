import type { IncomingMessage } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { CallLog, TokenKind } from "./callLog.js";
import type { FailureInjection } from "./failureInjection.js";
import type { HttpAnswer } from "./httpServer.js";
import { readRequest, type ParamEncoding, type Params } from "./requestParams.js";
import type { WebMethod } from "./slackContext.js";
import { SlackApiError } from "./slackApiError.js";

export interface WebApiOptions {
  readonly methods: readonly WebMethod[];
  readonly tokens: { readonly bot: string; readonly app: string };
  readonly botScopes: ReadonlySet<string>;
  readonly failures: FailureInjection;
  readonly log: CallLog;
  readonly now: () => number;
  readonly closing: AbortSignal;
}

/**
 * One Web API call from arrival to answer, in the order Slack checks: the method exists
 * (`unknown_method`), POST where required (`insecure_request`), the body's encoding, the token — none
 * (`not_authed`), not the fake's (`invalid_auth`), revoked (`token_revoked`), the other kind
 * (`not_allowed_token_type`: the `xapp-` token only opens connections, the `xoxb-` token does the rest) —
 * then an injected delay or failure, the scope (`missing_scope` with `needed` and `provided`), and the
 * method's own checks. Every call is recorded with its answer.
 */
export class WebApi {
  private readonly methods: ReadonlyMap<string, WebMethod>;

  constructor(private readonly options: WebApiOptions) {
    this.methods = new Map(options.methods.map((method) => [method.name, method]));
  }

  async answer(name: string, request: IncomingMessage, url: URL, body: Buffer, gone: AbortSignal): Promise<HttpAnswer> {
    const { log, now } = this.options;
    const method = this.methods.get(name);
    let params: Params = {};
    let encoding: ParamEncoding = body.length === 0 ? "query" : "form";
    let token: TokenKind = "none";
    let status = 200;
    let answer: Record<string, unknown>;
    let retryAfter: number | undefined;
    let call;
    try {
      if (!method) throw new SlackApiError("unknown_method", { req_method: name });
      if (method.postOnly && request.method !== "POST") throw new SlackApiError("insecure_request");
      const read = await readRequest(url, { authorization: request.headers.authorization, "content-type": request.headers["content-type"] }, body);
      encoding = read.encoding;
      // Slack reads no JSON body for the methods that take only form or query arguments.
      params = encoding === "json" && !method.json ? Object.fromEntries(url.searchParams) : read.params;
      token = this.kindOf(read.token);
      call = log.record({ method: name, params, encoding, httpMethod: request.method ?? "GET", token, at: now() });
      this.checkToken(method, token);
      const delay = this.options.failures.delayOf(name);
      if (delay > 0) await sleep(delay, undefined, { signal: AbortSignal.any([gone, this.options.closing]) });
      const injected = this.options.failures.take(name);
      if (injected) throw injected;
      const needed = method.scope(params);
      if (needed !== undefined && !this.options.botScopes.has(needed)) throw new SlackApiError("missing_scope", { needed, provided: [...this.options.botScopes].join(",") });
      answer = { ok: true, ...method.handle(params) };
    } catch (error) {
      if ((error as Error).name === "AbortError") return { status: 500, headers: {}, body: "" };
      if (!(error instanceof SlackApiError)) throw error;
      status = error.httpStatus;
      retryAfter = error.retryAfterSeconds;
      answer = error.body;
    }
    call ??= log.record({ method: name, params, encoding, httpMethod: request.method ?? "GET", token, at: now() });
    Object.assign(call, { answeredAt: now(), httpStatus: status, ok: answer.ok === true, error: answer.ok === true ? undefined : answer.error, response: answer });
    const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
    if (token === "bot") headers["x-oauth-scopes"] = [...this.options.botScopes].join(",");
    if (retryAfter !== undefined) headers["retry-after"] = String(retryAfter);
    return { status, headers, body: JSON.stringify(answer) };
  }

  private kindOf(token: string | undefined): TokenKind {
    if (token === undefined) return "none";
    if (token === this.options.tokens.bot) return "bot";
    if (token === this.options.tokens.app) return "app";
    return "unknown";
  }

  private checkToken(method: WebMethod, token: TokenKind): void {
    if (token === "none") throw new SlackApiError("not_authed");
    if (token === "unknown") throw new SlackApiError("invalid_auth");
    if (this.options.failures.revoked.has(token)) throw new SlackApiError("token_revoked");
    if (token !== method.token) throw new SlackApiError("not_allowed_token_type");
  }
}
