import type { Update, WebhookInfo } from "grammy/types";
import type { UpdateQueue } from "./updateQueue.js";

/** What `setWebhook` registered. */
export interface WebhookSetting {
  readonly url: string;
  readonly secretToken: string | undefined;
  readonly maxConnections: number;
  readonly allowedUpdates: readonly string[] | undefined;
}

/** One POST of an update to a webhook, and what came of it. */
export interface WebhookDelivery {
  readonly update_id: number;
  readonly url: string;
  /** The `X-Telegram-Bot-Api-Secret-Token` sent, if any. */
  readonly secretToken: string | undefined;
  /** The HTTP status the webhook answered; undefined when it could not be reached. */
  readonly status: number | undefined;
  /** Why the delivery failed, in getWebhookInfo's words; undefined on a 2xx. */
  readonly error: string | undefined;
  readonly at: number;
}

export interface WebhookOptions {
  /** How long after a failed delivery the fake tries that update again. */
  readonly retryDelayMs: number;
  /** How long a delivery may take before it counts as failed. */
  readonly timeoutMs: number;
  readonly now: () => number;
}

/**
 * Webhook mode: while a webhook is set, the fake POSTs each pending update as JSON to its URL, one at a
 * time and in order, with the secret token header when one was set. A 2xx confirms the update; anything
 * else is recorded and the same update is tried again after `retryDelayMs`, as Telegram retries.
 */
export class WebhookSender {
  setting: WebhookSetting | undefined;
  readonly deliveries: WebhookDelivery[] = [];
  private lastError: { date: number; message: string } | undefined;
  private running = false;
  private stopped = false;
  private readonly inFlight = new Set<AbortController>();
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly queue: UpdateQueue,
    private readonly options: WebhookOptions,
  ) {
    queue.onQueued = () => this.kick();
  }

  set(setting: WebhookSetting): void {
    this.setting = setting;
    this.lastError = undefined;
    this.kick();
  }

  clear(): void {
    this.setting = undefined;
    this.lastError = undefined;
    clearTimeout(this.retryTimer);
  }

  info(): WebhookInfo {
    const setting = this.setting;
    const info: Record<string, unknown> = { url: setting?.url ?? "", has_custom_certificate: false, pending_update_count: this.queue.pending().length };
    if (setting) {
      info.max_connections = setting.maxConnections;
      if (setting.allowedUpdates && setting.allowedUpdates.length > 0) info.allowed_updates = setting.allowedUpdates;
      if (this.lastError) Object.assign(info, { last_error_date: this.lastError.date, last_error_message: this.lastError.message });
    }
    return info as unknown as WebhookInfo;
  }

  /**
   * POSTs an update to any URL with the headers a test chooses (a wrong or missing secret token), outside
   * the delivery order: what a forged or stale webhook call looks like to turnstream's listener.
   */
  async post(url: string, update: Update, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(update) });
    return { status: response.status, body: await response.text() };
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    for (const controller of this.inFlight) controller.abort();
  }

  private kick(): void {
    if (this.running || this.stopped || !this.setting) return;
    this.running = true;
    void this.deliverPending().finally(() => {
      this.running = false;
    });
  }

  private async deliverPending(): Promise<void> {
    for (;;) {
      const setting = this.setting;
      const update = this.queue.pending()[0];
      if (!setting || !update || this.stopped) return;
      const delivery = await this.deliver(setting, update);
      this.deliveries.push(delivery);
      if (this.setting !== setting) continue;
      if (delivery.error === undefined) {
        this.queue.confirmBelow(update.update_id + 1);
        continue;
      }
      this.lastError = { date: Math.floor(delivery.at / 1000), message: delivery.error };
      this.retryTimer = setTimeout(() => this.kick(), this.options.retryDelayMs);
      return;
    }
  }

  private async deliver(setting: WebhookSetting, update: Update): Promise<WebhookDelivery> {
    const controller = new AbortController();
    this.inFlight.add(controller);
    const timer = setTimeout(() => controller.abort(), this.options.timeoutMs);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (setting.secretToken) headers["x-telegram-bot-api-secret-token"] = setting.secretToken;
    const base = { update_id: update.update_id, url: setting.url, secretToken: setting.secretToken };
    try {
      const response = await fetch(setting.url, { method: "POST", headers, body: JSON.stringify(update), signal: controller.signal });
      await response.arrayBuffer();
      const ok = response.status >= 200 && response.status < 300;
      const error = ok ? undefined : `Wrong response from the webhook: ${response.status} ${response.statusText}`.trimEnd();
      return { ...base, status: response.status, error, at: this.options.now() };
    } catch (cause) {
      const error = controller.signal.aborted ? "Read timeout expired" : `Connection failed: ${(cause as Error).cause ?? (cause as Error).message}`;
      return { ...base, status: undefined, error, at: this.options.now() };
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
  }
}
