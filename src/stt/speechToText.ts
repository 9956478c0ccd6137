import type { GatewayAttachment, GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { Logger } from "../log/logger.js";

export interface SpeechToTextOptions {
  /** `[stt] base_url`: an OpenAI-compatible API; `/audio/transcriptions` is appended. */
  readonly baseUrl: string;
  /** Sent as a Bearer token when not empty. */
  readonly apiKey: string;
  readonly model: string;
  readonly logger: Logger;
  /** How long one transcription may take; default 30 s. */
  readonly timeoutMs?: number;
}

/** Why a transcription failed, as the log and the "not delivered" note say it. */
export type TranscriptionFailure = "timeout" | "unreachable" | `http_${number}` | "bad_response";

/** One attachment's transcription: the text, or why there is none. */
type Transcription = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reason: TranscriptionFailure };

const failed = (reason: TranscriptionFailure): Transcription => ({ ok: false, reason });

/** The most of a response read: a transcript is text, and an endpoint may answer anything. */
const MAX_RESPONSE_BYTES = 1 << 20;

/**
 * `[stt]`, as OpenAB: each audio attachment of an event is sent to `<base_url>/audio/transcriptions`
 * (multipart: `file`, `model`) and comes back with its `transcript`, which the prompt packs as
 * `[Voice message transcript]: <text>`. A transcription that fails marks the attachment
 * `status: "transcription failed: <reason>"`, so the agent gets upstream's "not delivered" note
 * and the turn still runs. The API key is never logged.
 */
export class SpeechToText {
  readonly #options: SpeechToTextOptions;
  readonly #url: string;

  constructor(options: SpeechToTextOptions) {
    this.#options = options;
    this.#url = `${options.baseUrl.replace(/\/+$/, "")}/audio/transcriptions`;
  }

  /** Whether the event has an audio attachment to transcribe. */
  static wants(event: GatewayEvent): boolean {
    return (event.content.attachments ?? []).some(isTranscribable);
  }

  /** The event with each audio attachment transcribed, or marked as not delivered. */
  async transcribe(event: GatewayEvent): Promise<GatewayEvent> {
    const attachments = event.content.attachments ?? [];
    if (!attachments.some(isTranscribable)) return event;
    const done: GatewayAttachment[] = [];
    for (const attachment of attachments) done.push(isTranscribable(attachment) ? await this.#one(attachment) : attachment);
    return { ...event, content: { ...event.content, attachments: done } };
  }

  async #one(attachment: GatewayAttachment): Promise<GatewayAttachment> {
    const outcome = await this.#request(attachment);
    if (outcome.ok) return { ...attachment, transcript: outcome.text };
    const { reason } = outcome;
    this.#options.logger.warn({ reason: "transcription_failed", failure: reason, mime_type: attachment.mime_type, size: attachment.size }, "audio attachment not transcribed");
    return { ...attachment, status: `transcription failed: ${reason}` };
  }

  async #request(attachment: GatewayAttachment): Promise<Transcription> {
    const { apiKey, model, timeoutMs = 30_000 } = this.#options;
    const form = new FormData();
    form.append("file", new Blob([Buffer.from(attachment.data, "base64")], { type: attachment.mime_type }), attachment.filename || "audio");
    form.append("model", model);
    let response: Response;
    try {
      response = await fetch(this.#url, {
        method: "POST",
        body: form,
        headers: apiKey === "" ? {} : { authorization: `Bearer ${apiKey}` },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      return failed((err as Error).name === "TimeoutError" ? "timeout" : "unreachable");
    }
    if (!response.ok) {
      await response.body?.cancel();
      return failed(`http_${response.status}`);
    }
    const body = await boundedText(response);
    if (body === undefined) return failed("bad_response");
    try {
      const parsed: unknown = JSON.parse(body);
      const text = typeof parsed === "object" && parsed !== null ? (parsed as { text?: unknown }).text : undefined;
      return typeof text === "string" ? { ok: true, text: text.trim() } : failed("bad_response");
    } catch {
      return failed("bad_response");
    }
  }
}

function isTranscribable(attachment: GatewayAttachment): boolean {
  return attachment.type === "audio" && attachment.data !== "" && attachment.status == null && attachment.transcript === undefined;
}

/** The response's text, or undefined past 1 MiB. */
async function boundedText(response: Response): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
