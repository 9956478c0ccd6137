import { createHash, randomBytes } from "node:crypto";
import type { Logger } from "../log/logger.js";
import { ReplyBinding } from "./replyBinding.js";
import type { ReplyToolSpec } from "./replyToolSpec.js";

/**
 * The live bindings, by secret and by session key: one per ACP session. Secrets are 256 random
 * bits and are looked up by their SHA-256, so neither a lookup's timing nor the map's keys hold
 * the secret itself. A session key has one binding at a time: issuing a new one revokes the old.
 */
export class ReplyBindings {
  readonly #bySecret = new Map<string, ReplyBinding>();
  readonly #secretOf = new Map<ReplyBinding, string>();
  readonly #byKey = new Map<string, ReplyBinding>();
  readonly #spec: ReplyToolSpec;
  readonly #logger: Logger;

  constructor(spec: ReplyToolSpec, logger: Logger) {
    this.#spec = spec;
    this.#logger = logger;
  }

  get size(): number {
    return this.#byKey.size;
  }

  issue(sessionKey: string): { readonly binding: ReplyBinding; readonly secret: string } {
    const previous = this.#byKey.get(sessionKey);
    if (previous !== undefined) this.revoke(previous);
    const secret = randomBytes(32).toString("base64url");
    const binding = new ReplyBinding(sessionKey, this.#spec, this.#logger);
    const hashed = digest(secret);
    this.#bySecret.set(hashed, binding);
    this.#secretOf.set(binding, hashed);
    this.#byKey.set(sessionKey, binding);
    return { binding, secret };
  }

  /** The binding `secret` names, if it is live. */
  find(secret: string): ReplyBinding | undefined {
    return this.#bySecret.get(digest(secret));
  }

  /** The session key's live binding. */
  current(sessionKey: string): ReplyBinding | undefined {
    return this.#byKey.get(sessionKey);
  }

  revoke(binding: ReplyBinding): void {
    binding.revoke();
    const hashed = this.#secretOf.get(binding);
    if (hashed !== undefined) this.#bySecret.delete(hashed);
    this.#secretOf.delete(binding);
    if (this.#byKey.get(binding.sessionKey) === binding) this.#byKey.delete(binding.sessionKey);
  }

  revokeAll(): void {
    for (const binding of [...this.#secretOf.keys()]) this.revoke(binding);
  }
}

function digest(secret: string): string {
  return createHash("sha256").update(secret).digest("base64url");
}
