import { SlackApiError } from "./slackApiError.js";

/** How a call's arguments arrived. */
export type ParamEncoding = "form" | "multipart" | "json" | "query";

/**
 * A call's arguments as they arrived: strings from a query string or a form, any JSON value from a JSON
 * body, strings and uploaded files (`Blob`) from a multipart body.
 */
export type Params = Readonly<Record<string, unknown>>;

export interface ReadRequest {
  readonly params: Params;
  readonly encoding: ParamEncoding;
  /** The token from `Authorization: Bearer …`, else from a form's `token` argument (Slack takes both; a JSON body's is ignored). */
  readonly token: string | undefined;
}

/**
 * The encodings Slack's Web API accepts, refused in its words: a body without a Content-Type
 * (`missing_post_type`), a type it does not read (`invalid_post_type`), a charset other than UTF-8 or
 * ISO-8859-1 (`invalid_charset`), JSON that does not parse (`invalid_json`) or is not an object
 * (`json_not_object`). The query string is read first, then the body over it.
 */
export async function readRequest(url: URL, headers: { authorization?: string; "content-type"?: string }, body: Buffer): Promise<ReadRequest> {
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? "")?.[1];
  // Slack refuses a token in the query string for apps made since 2021: a query token is not read as one.
  delete params.token;
  if (body.length === 0) return { params, encoding: "query", token: bearer };
  const contentType = headers["content-type"];
  if (!contentType) throw new SlackApiError("missing_post_type");
  const [type, ...parameters] = contentType.split(";").map((part) => part.trim().toLowerCase());
  const charset = parameters.find((part) => part.startsWith("charset="))?.slice("charset=".length).replace(/"/g, "");
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8" && charset !== "iso-8859-1") throw new SlackApiError("invalid_charset");
  if (type === "application/json") return { params: { ...params, ...jsonObject(body) }, encoding: "json", token: bearer };
  if (type === "application/x-www-form-urlencoded") {
    for (const [name, value] of new URLSearchParams(body.toString("utf8"))) params[name] = value;
    return withFormToken(params, "form", bearer);
  }
  if (type === "multipart/form-data") {
    // undici's Response reads multipart/form-data: no hand-written parser to get wrong.
    const form = await new Response(new Uint8Array(body), { headers: { "content-type": contentType } }).formData().catch(() => {
      throw new SlackApiError("invalid_form_data");
    });
    for (const [name, value] of form) params[name] = value;
    return withFormToken(params, "multipart", bearer);
  }
  throw new SlackApiError("invalid_post_type");
}

function withFormToken(params: Record<string, unknown>, encoding: ParamEncoding, bearer: string | undefined): ReadRequest {
  const { token, ...rest } = params;
  return { params: rest, encoding, token: bearer ?? (typeof token === "string" && token !== "" ? token : undefined) };
}

function jsonObject(body: Buffer): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    throw new SlackApiError("invalid_json");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new SlackApiError("json_not_object");
  const { token: _ignored, ...rest } = parsed as Record<string, unknown>;
  return rest;
}
