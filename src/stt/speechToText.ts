import type { GatewayAttachment, GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { Logger } from "../log/logger.js";
import { failed, postTranscription, type Transcription } from "./transcriptionExchange.js";

export type { TranscriptionFailure } from "./transcriptionExchange.js";

export interface SpeechToTextOptions {
  /** `[stt] base_url`: an OpenAI-compatible API; `/audio/transcriptions` is appended. */
  readonly baseUrl: string;
  /** Sent as a Bearer token when not empty. */
  readonly apiKey: string;
  readonly model: string;
  readonly logger: Logger;
  /** How long one transcription may take, headers and body together (`[stt] timeout_secs`); default 30 s. */
  readonly timeoutMs?: number;
}

/** The largest audio posted: upstream's download cap, and the OpenAI and Groq APIs' file limit. */
export const MAX_AUDIO_BYTES = 25 * 1024 * 1024;

/**
 * `[stt]`, as OpenAB: each audio attachment of an event is sent to `<base_url>/audio/transcriptions`
 * (multipart: `file`, `model`) and comes back with its `transcript`, which the prompt packs as
 * `[Voice message transcript]: <text>`. A transcription that fails — including audio too big to
 * post or with no bytes at all — marks the attachment `status: "transcription failed: <reason>"`,
 * so the agent gets upstream's "not delivered" note and the turn still runs: `transcribe` never
 * rejects. The API key is never logged.
 */
export class SpeechToText {
  readonly #options: SpeechToTextOptions;
  readonly #url: string;

  constructor(options: SpeechToTextOptions) {
    this.#options = options;
    this.#url = `${options.baseUrl.replace(/\/+$/, "")}/audio/transcriptions`;
  }

  /** The event with each audio attachment transcribed, or marked as not delivered. Never rejects. */
  async transcribe(event: GatewayEvent): Promise<GatewayEvent> {
    const attachments = event.content.attachments ?? [];
    if (!attachments.some(isForStt)) return event;
    const done: GatewayAttachment[] = [];
    for (const attachment of attachments) done.push(isForStt(attachment) ? await this.#one(attachment) : attachment);
    return { ...event, content: { ...event.content, attachments: done } };
  }

  async #one(attachment: GatewayAttachment): Promise<GatewayAttachment> {
    const outcome = await this.#transcription(attachment);
    if (outcome.ok) return { ...attachment, transcript: outcome.text };
    const { reason } = outcome;
    this.#options.logger.warn({ reason: "transcription_failed", failure: reason, mime_type: attachment.mime_type, size: attachment.size }, "audio attachment not transcribed");
    return { ...attachment, status: `transcription failed: ${reason}` };
  }

  async #transcription(attachment: GatewayAttachment): Promise<Transcription> {
    if (attachment.data === "") return failed("empty");
    // Measured from the base64's length: a voice note too big to post is never decoded.
    if (Buffer.byteLength(attachment.data, "base64") > MAX_AUDIO_BYTES) return failed("too_large");
    const { apiKey, model, timeoutMs = 30_000 } = this.#options;
    const form = new FormData();
    form.append("file", new Blob([Buffer.from(attachment.data, "base64")], { type: attachment.mime_type }), attachment.filename || "audio");
    form.append("model", model);
    return postTranscription({ url: this.#url, form, headers: apiKey === "" ? {} : { authorization: `Bearer ${apiKey}` }, timeoutMs });
  }
}

/**
 * Audio `[stt]` answers for: not already marked or transcribed, and not a `path`-only attachment
 * (the prompt says turnstream reads no files). One with no bytes at all is marked "empty".
 */
function isForStt(attachment: GatewayAttachment): boolean {
  if (attachment.type !== "audio" || attachment.status != null || attachment.transcript !== undefined) return false;
  return attachment.data !== "" || attachment.path == null || attachment.path === "";
}
