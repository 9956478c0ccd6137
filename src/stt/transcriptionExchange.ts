/** Why a transcription failed, as the log and the "not delivered" note say it. */
export type TranscriptionFailure =
  | "timeout"
  | "unreachable"
  | `http_${number}`
  | "bad_response"
  /** Over `MAX_AUDIO_BYTES`: never posted. */
  | "too_large"
  /** An audio attachment with no bytes (and no path): nothing to post. */
  | "empty";

/** One attachment's transcription: the text, or why there is none. */
export type Transcription = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reason: TranscriptionFailure };

export const failed = (reason: TranscriptionFailure): Transcription => ({ ok: false, reason });

/** The most of a response read: a transcript is text, and an endpoint may answer anything. */
const MAX_RESPONSE_BYTES = 1 << 20;

export interface TranscriptionRequest {
  readonly url: string;
  readonly form: FormData;
  readonly headers: Readonly<Record<string, string>>;
  /** The whole exchange — connect, upload, headers, body — ends within this. */
  readonly timeoutMs: number;
}

/**
 * One POST to a transcription endpoint, settled with a `Transcription` and never a rejection. The
 * deadline covers the whole exchange: a server that answers 200 and then stalls or trickles its
 * body is a `timeout` like one that never answers. The race with the deadline does not trust the
 * HTTP client to honour its abort signal while a body is read. Redirects are not followed: a 3xx
 * is `http_3xx`, so the audio and the API key never leave for another address.
 */
export async function postTranscription(request: TranscriptionRequest): Promise<Transcription> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Transcription>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(failed("timeout"));
    }, request.timeoutMs);
  });
  try {
    return await Promise.race([exchange(request, controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
    // Whatever is still open (a body nobody reads any more) is torn down.
    controller.abort();
  }
}

async function exchange(request: TranscriptionRequest, signal: AbortSignal): Promise<Transcription> {
  let response: Response;
  try {
    response = await fetch(request.url, { method: "POST", body: request.form, headers: request.headers, signal, redirect: "manual" });
  } catch {
    return failed(signal.aborted ? "timeout" : "unreachable");
  }
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel().catch(() => undefined);
    return failed(`http_${response.status}`);
  }
  let body: string | undefined;
  try {
    body = await boundedText(response);
  } catch {
    return failed(signal.aborted ? "timeout" : "bad_response");
  }
  return body === undefined ? failed("bad_response") : transcriptOf(body);
}

/** The answer's `text`, trimmed; anything else is a `bad_response`. */
function transcriptOf(body: string): Transcription {
  try {
    const parsed: unknown = JSON.parse(body);
    const text = typeof parsed === "object" && parsed !== null ? (parsed as { text?: unknown }).text : undefined;
    return typeof text === "string" ? { ok: true, text: text.trim() } : failed("bad_response");
  } catch {
    return failed("bad_response");
  }
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
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
