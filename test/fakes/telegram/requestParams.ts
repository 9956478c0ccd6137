import { badRequest } from "./botApiError.js";
import { multipartParams } from "./multipartBody.js";

/**
 * A call's parameters as they arrived: JSON values from a JSON body, strings from a query string or a
 * urlencoded body, strings and uploaded files (`UploadedFile`) from a multipart body. A nested object sent as a
 * string (how the form encodings carry `reply_markup`) is read as JSON where the method expects one.
 */
export type Params = Readonly<Record<string, unknown>>;

/**
 * The four encodings the Bot API accepts, merged: the query string first, then the body (grammY sends
 * JSON, and multipart/form-data when a call uploads a file).
 */
export async function requestParams(url: URL, contentType: string | undefined, body: Buffer): Promise<Params> {
  const params: Record<string, unknown> = {};
  for (const [name, value] of url.searchParams) params[name] = value;
  if (body.length === 0) return params;
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/json") return { ...params, ...jsonBody(body) };
  if (type === "application/x-www-form-urlencoded") {
    for (const [name, value] of new URLSearchParams(body.toString("utf8"))) params[name] = value;
    return params;
  }
  if (type === "multipart/form-data") return { ...params, ...multipartParams(contentType!, body) };
  throw badRequest(`Unsupported Content-Type "${type}"`);
}

function jsonBody(body: Buffer): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch (cause) {
    throw badRequest("Can't parse JSON object", { cause });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw badRequest("JSON body must be an Object");
  // grammY drops nulls before sending; a null that still arrives means "not given", as Telegram reads it.
  return Object.fromEntries(Object.entries(parsed).filter(([, value]) => value !== null));
}
