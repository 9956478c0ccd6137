/**
 * Credentials in agent text bound for a chat (a tool's argument or title, an error message)
 * replaced by `[redacted]`: mono-agent's redactions (`../shared/reference/peers.md` §11.2) in its
 * order, with env-style names (`AWS_SECRET_ACCESS_KEY=…`) and a few more token shapes. Every
 * pattern starts only where a token starts and stops where it ends, so each pass is linear in the
 * text: no position is scanned again from every start inside a long token.
 */

/** Masks the secrets in a text. The broker injects one that knows its own secrets (config, `[agent.env]`) besides these shapes. */
export type Redact = (text: string) => string;

export const REDACTED = "[redacted]";

const SENSITIVE_PARAMS = "api_key|access_token|refresh_token|auth_token|client_secret|password|passwd|secret|signature|x-amz-signature|ticket|token";

/** A flag that takes a credential: `--token`, `--db-password`, `--api-key`, `--credentials-file`. */
const SENSITIVE_FLAG = /token|passw(?:or)?d|secret|api[-_]?key|credential/i;

/**
 * A `name: value` / `name=value` whose value is a credential: mono-agent's names (authorization,
 * cookie, api key, …token, password, …secret, private key, credentials, session id), also inside
 * env-style names (`DB_PASSWORD`, `AWS_SECRET_ACCESS_KEY`, `STRIPE_KEY`).
 */
const SENSITIVE_NAME =
  /secret|passw(?:or)?d|credential|private[-_ ]?key|access[-_ ]?key|(?:^|[-_ ])key$|apikey$|token$|^authorization$|^(?:set-)?cookie$|^session[-_ ]?id$/i;

/** Known secret shapes, whole. */
const SHAPES: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,}/g,
  /\bgh[oprsu]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\bxox[baprs]-[A-Za-z0-9-]{8,}/g,
  /\bxapp-[A-Za-z0-9-]{8,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}/g,
  // Telegram bot tokens.
  /\b\d{6,}:[A-Za-z0-9_-]{20,}/g,
  // JWTs; only where a token starts, so `eyJ-eyJ-…` is not rescanned from every `eyJ`.
  /(?<![\w-])eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]+)?/g,
];

/** Credentials and tokens in a command, a title or a message replaced by `[redacted]`. */
export function redactSecrets(text: string): string {
  let out = text;
  // mysql / mariadb take a password glued to -p (or after it): -psecret → -p[redacted].
  if (/\b(?:mysql|mariadb)\b/i.test(out)) out = out.replace(/(\s-p)(?:\s+(?!-)\S+|(?!\s)\S+)/g, `$1${REDACTED}`);
  // URL user info: https://user:pass@host → https://host. From `://` only: a scheme matched at every
  // letter would rescan a long word from each one. Up to the last `@`, so a password with one goes whole.
  out = out.replace(/:\/\/[^\s/?#]*@/g, "://");
  // Sensitive query parameters.
  out = out.replace(new RegExp(String.raw`([?&](?:${SENSITIVE_PARAMS})=)[^&\s#'"]*`, "gi"), `$1${REDACTED}`);
  // Sensitive flags: --token x, --password=x.
  out = out.replace(/(?<![\w-])(--[\w-]+)(?:=|\s+)(?!-)\S+/g, (whole, flag: string) => (SENSITIVE_FLAG.test(flag) ? `${flag} ${REDACTED}` : whole));
  // curl -u user:pass, --user user:pass.
  out = out.replace(/((?:^|\s)(?:-u|--user)(?:=|\s+))[^\s:]+:\S+/g, `$1${REDACTED}`);
  out = redactAssignments(out);
  // Bearer / Basic credentials anywhere else.
  out = out.replace(/\b(Bearer|Basic)\s+(?!\[redacted\])\S+/g, `$1 ${REDACTED}`);
  // A PEM private key's body, to its END line (or the text's end).
  out = out.replace(/(-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----)[^-]*/g, `$1${REDACTED}`);
  for (const shape of SHAPES) out = out.replace(shape, REDACTED);
  return out;
}

/**
 * `key: value` and `key=value` for credentials (a quoted JSON key too; `Bearer x` as one value) →
 * `key=[redacted]`. Any name is matched and then judged, so that the value of a harmless one
 * (`Error: password=x`) is still read as text rather than skipped.
 */
function redactAssignments(text: string): string {
  const assignment = /(?<![\w-])([\w-]+(?: (?:key|id))?)["']?\s*[:=]\s*/gi;
  const value = /(?:(?:Bearer|Basic)\s+)?\S+/iy;
  let out = "";
  let copied = 0;
  for (let match = assignment.exec(text); match !== null; match = assignment.exec(text)) {
    const name = match[1] as string;
    if (!SENSITIVE_NAME.test(name)) continue;
    value.lastIndex = assignment.lastIndex;
    if (value.exec(text) === null) continue;
    out += `${text.slice(copied, match.index)}${name}=${REDACTED}`;
    copied = assignment.lastIndex = value.lastIndex;
  }
  return copied === 0 ? text : out + text.slice(copied);
}
