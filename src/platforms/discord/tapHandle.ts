/**
 * A tap's handle (`GatewayEvent.tap.id`, `answer_tap`'s `reply_to`): `<application id>:<interaction
 * token>`, what any edge needs to send the tapper an ephemeral follow-up through the interaction's
 * webhook — no state kept, so the edge that answers need not be the one that received. The token
 * is a credential for 15 minutes: it is never logged, and an error never quotes the handle.
 */
export interface TapHandle {
  readonly applicationId: string;
  readonly token: string;
}

const SNOWFLAKE = /^\d{1,20}$/;
/**
 * What an interaction token is made of: Discord's are base64url-like, a few hundred characters.
 * Bounded so a forged one cannot bloat an event, and free of `/`, `?`, `%` and `:` since it is a
 * path segment of the follow-up's URL.
 */
const TOKEN = /^[A-Za-z0-9._-]{1,1000}$/;

export function tapHandle(handle: TapHandle): string {
  return `${handle.applicationId}:${handle.token}`;
}

/** The handle's parts, or `undefined` for a string that is none (not from this adapter, or forged). */
export function readTapHandle(id: string): TapHandle | undefined {
  const colon = id.indexOf(":");
  if (colon < 0) return undefined;
  const handle = { applicationId: id.slice(0, colon), token: id.slice(colon + 1) };
  return validTapHandle(handle) ? handle : undefined;
}

/** Whether an interaction's application id and token can make a handle (both came from the gateway, untrusted). */
export function validTapHandle(handle: { readonly applicationId: unknown; readonly token: unknown }): handle is TapHandle {
  return typeof handle.applicationId === "string" && SNOWFLAKE.test(handle.applicationId) && typeof handle.token === "string" && TOKEN.test(handle.token);
}
