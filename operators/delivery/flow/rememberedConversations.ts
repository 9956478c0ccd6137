import type { SchedulerLike } from "rxjs";
import { asGoodAsNew, platformOf, type Conversation, type Platform } from "./conversationBuckets.js";
import type { PlatformRateLimits } from "./platformRateLimits.js";

/**
 * The platforms and conversations `SendShaper` knows, with memory bounded by `maxKeys`: past it,
 * the conversations whose buckets are as good as new are forgotten (a forgotten bucket is a full one).
 */
export class RememberedConversations {
  readonly #limits: (platform: string) => PlatformRateLimits | undefined;
  readonly #scheduler: SchedulerLike;
  readonly #maxKeys: number;
  /** Each platform asked about, `undefined` when it has no limits. */
  readonly #platforms = new Map<string, Platform | undefined>();
  /** Conversations remembered, across platforms. */
  #remembered = 0;
  /** When `#remembered` passes this, those as good as new are forgotten (then twice what is left, so a sweep is amortised). */
  #sweepAt: number;

  constructor(limits: (platform: string) => PlatformRateLimits | undefined, scheduler: SchedulerLike, maxKeys: number) {
    this.#limits = limits;
    this.#scheduler = scheduler;
    this.#maxKeys = maxKeys;
    this.#sweepAt = maxKeys;
  }

  /** The platform's limits as applied here: `limits` is asked once per platform. */
  platform(name: string): Platform | undefined {
    let platform = this.#platforms.get(name);
    if (platform === undefined && !this.#platforms.has(name)) {
      platform = platformOf(name, this.#limits(name));
      this.#platforms.set(name, platform);
    }
    return platform;
  }

  conversation(platform: Platform, id: string): Conversation {
    let conversation = platform.conversations.get(id);
    if (conversation === undefined) {
      // Swept before it is added: a new conversation is as good as new.
      if (this.#remembered >= this.#sweepAt) this.#forgetFull(this.#scheduler.now());
      conversation = { platform, bucket: undefined, group: undefined, heldUntil: 0, lane: undefined };
      platform.conversations.set(id, conversation);
      this.#remembered += 1;
    }
    return conversation;
  }

  #forgetFull(now: number): void {
    for (const platform of this.#platforms.values()) {
      if (platform === undefined) continue;
      const { conversations } = platform;
      for (const [id, conversation] of conversations) {
        if (!asGoodAsNew(conversation, now)) continue;
        conversations.delete(id);
        this.#remembered -= 1;
      }
    }
    this.#sweepAt = Math.max(this.#maxKeys, 2 * this.#remembered);
  }
}
