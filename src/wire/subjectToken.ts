import { natsNameCodec } from "./natsNameCodec.js";

/** The longest token `subjectToken` makes without hashing. */
export const maxTokenLength = 128;

/**
 * Wire strings (a platform name, an event id) as one NATS subject token, or as a header value:
 * letters, digits, `-` and `_` stay as they are, every other UTF-8 byte becomes `%XX`, a lone
 * UTF-16 surrogate (JSON can carry one) `%%XXXX`, and the empty string `%`. So the token never
 * holds `.`, `*`, `>`, whitespace, NUL or CR/LF, and the mapping is injective. An encoding longer
 * than `maxTokenLength` keeps its first 64 characters, then `~` and a hash of the whole encoding.
 */
const tokens = natsNameCodec({ plain: /[A-Za-z0-9_-]/, mark: "%", maxLength: maxTokenLength, kept: 64, separator: "~" });

export const subjectToken = (value: string): string => tokens.encode(value);

/** The string `subjectToken` encoded; `undefined` for a hashed (long) token or one it never makes. */
export const fromSubjectToken = (token: string): string | undefined => tokens.decode(token);
