import { natsNameCodec } from "../../wire/natsNameCodec.js";

/** The longest key `kvKey` makes without hashing. */
export const maxKvKeyLength = 256;

/**
 * A NATS KV key for any string. KV keys allow only `[-/_=.a-zA-Z0-9]`; letters, digits, `-`, `_`
 * and `/` stay as they are (so `nats kv ls` stays readable), every other UTF-8 byte becomes `=XX`,
 * a lone UTF-16 surrogate (JSON can carry one) `==XXXX`. `=` is always escaped, so the mapping is
 * injective; the empty string becomes `=`. The key is a subject token of the bucket's stream: an
 * encoding longer than `maxKvKeyLength` keeps its first 128 characters, then `.` and a hash of the
 * whole encoding (`.` never appears in the short form).
 */
const keys = natsNameCodec({ plain: /[A-Za-z0-9_/-]/, mark: "=", maxLength: maxKvKeyLength, kept: 128, separator: "." });

export const kvKey = (key: string): string => keys.encode(key);

/** The string `kvKey` encoded (for reading `nats kv ls` output back); `undefined` for a hashed key or one `kvKey` never makes. */
export const fromKvKey = (encoded: string): string | undefined => keys.decode(encoded);
