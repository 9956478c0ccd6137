// Credentials a URL can carry, masked wherever a URL is shown: check-config, logs, errors.

const MASK = "***";

/** Query or fragment parameters whose value is a credential (`?token=`, `&api_key=`, `#access_token=`). */
const SECRET_PARAM = /token|pass|pwd|secret|key|auth|cred|sig|jwt/i;

// A parameter is `name=value` after `?`, `&`, `;` or `#`, up to the next separator or whitespace.
// The name stops at every separator, so each scan ends at the next one: linear in the text.
const PARAM = /([?&;#])([^=?&;#\s]*)=([^&;#\s]*)/g;
// In running text (a log line, an argument) a URL also ends at a quote or bracket, so a JSON log
// line stays JSON.
const PARAM_IN_TEXT = /([?&;#])([^=?&;#\s"'<>\\]*)=([^&;#\s"'<>\\]*)/g;

// `://userinfo@` inside any text; userinfo cannot hold an unencoded `/`, `?`, `#`, quote or space.
// The scheme is not matched: a scheme-shaped prefix scanned at every letter would be quadratic.
const EMBEDDED_USERINFO = /:\/\/[^\s/?#"'<>\\]*@/g;

/** Whether a URL parameter of this name holds a credential. */
export function isSecretParam(name: string): boolean {
  return SECRET_PARAM.test(name);
}

function maskParams(text: string, param = PARAM): string {
  return text.replace(param, (whole, separator: string, name: string, value: string) =>
    value !== "" && isSecretParam(name) ? `${separator}${name}=${MASK}` : whole,
  );
}

/**
 * A value meant to be a URL (`gateway.url`, `bus.url`), safe to show: everything before its last
 * `@` after the scheme (user, password or token) and every credential-like parameter become
 * `***`. Written for malformed input too, since errors quote malformed URLs: it over-masks rather
 * than parse.
 */
export function redactUrl(url: string): string {
  const schemeEnd = url.indexOf("://");
  const authorityStart = schemeEnd === -1 ? 0 : schemeEnd + 3;
  const at = url.lastIndexOf("@");
  const withoutUserinfo = at < authorityStart ? url : `${url.slice(0, authorityStart)}${MASK}${url.slice(at)}`;
  return maskParams(withoutUserinfo);
}

/** Any text with the credentials of every URL in it masked, e.g. an argument `--base-url=https://u:p@host`. */
export function redactUrlsIn(text: string): string {
  if (!text.includes("=") && !text.includes("@")) return text;
  return maskParams(text.replace(EMBEDDED_USERINFO, `://${MASK}@`), PARAM_IN_TEXT);
}

/** Whether the URL names a `token` parameter, as the gateway's own `?token=` does. */
export function urlHasToken(url: string): boolean {
  try {
    return new URL(url).searchParams.has("token");
  } catch {
    return false;
  }
}
