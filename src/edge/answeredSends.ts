import { flatString } from "../../operators/ingress/frames/flatString.js";
import type { SendReply } from "../wire/index.js";

/**
 * An edge's answers by send id, at most `max` (oldest forgotten first): a worker whose answer was
 * lost asks again and gets the same answer instead of a second post. While a send is in flight the
 * entry is its promise (a retry joins it); once it settles the entry is the reply alone, so a
 * remembered answer holds a few bytes and nothing of the request that produced it. The id is kept
 * as a flat copy (`flatString`): a `randomUUID()` id is a rope of 14 pieces, ~450 B.
 */
export class AnsweredSends {
  readonly #answers = new Map<string, SendReply | Promise<SendReply>>();

  constructor(readonly max: number) {}

  get size(): number {
    return this.#answers.size;
  }

  /** The answer for `sendId`: the remembered one, or `send()`'s (remembered). No id: always `send()`. */
  answer(sendId: string | undefined, send: () => Promise<SendReply>): Promise<SendReply> {
    if (sendId === undefined) return send();
    const known = this.#answers.get(sendId);
    if (known !== undefined) return Promise.resolve(known);
    const pending = send();
    this.#answers.set(flatString(sendId), pending);
    if (this.#answers.size > this.max) this.#answers.delete(this.#answers.keys().next().value as string);
    void pending.then((reply) => {
      // Replaces the promise in place (same age); a forgotten id stays forgotten.
      if (this.#answers.get(sendId) === pending) this.#answers.set(sendId, reply);
    });
    return pending;
  }
}
