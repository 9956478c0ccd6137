import { catchError, concat, EMPTY, from, ignoreElements, type Observable } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { SpeechToText } from "../stt/speechToText.js";
import { sendText } from "./sendText.js";
import { reactionMessage } from "./reactions/reactionMessage.js";
import type { TurnBatch, TurnContext } from "./turn.js";

// `[stt]` around a turn: its arrivals' audio transcribed before the prompt, and the transcripts
// echoed to the chat when `echo_transcript` says so.

/**
 * Whether any arrival of the turn has audio: to transcribe, or to echo as failed when it arrived
 * already marked not delivered (a frame over `max_frame_bytes`, a gateway's `status`).
 */
export function needsTranscripts(event: GatewayEvent, batch: TurnBatch | undefined): boolean {
  return hasAudio(event) || (batch?.earlier.some(hasAudio) ?? false);
}

function hasAudio(event: GatewayEvent): boolean {
  return (event.content.attachments ?? []).some((attachment) => attachment.type === "audio");
}

/** The turn's event (and a batch's earlier arrivals) with their audio transcribed. */
export function transcribed(event: GatewayEvent, batch: TurnBatch | undefined, speech: SpeechToText): Observable<[GatewayEvent, TurnBatch | undefined]> {
  return from(
    (async (): Promise<[GatewayEvent, TurnBatch | undefined]> => {
      const heard = await speech.transcribe(event);
      if (batch === undefined) return [heard, undefined];
      const earlier: GatewayEvent[] = [];
      for (const arrival of batch.earlier) earlier.push(await speech.transcribe(arrival));
      return [heard, { ...batch, earlier }];
    })(),
  );
}

/**
 * `[stt] echo_transcript`, as upstream: `> 🎤 <transcript>` in the thread before the agent's reply
 * so the user can check what was heard; a failed one says `(transcription failed)` and puts ⚠️ on
 * their message.
 */
export function echoTranscripts(event: GatewayEvent, context: TurnContext): Observable<never> {
  const audio = (event.content.attachments ?? []).filter((attachment) => attachment.type === "audio");
  return concat(
    ...audio.map((attachment) =>
      attachment.transcript !== undefined
        ? sendText(context, event, `> 🎤 ${attachment.transcript}`)
        : concat(
            sendText(context, event, "> 🎤 (transcription failed)"),
            context.sendStatus(reactionMessage(event, { op: "add", emoji: "⚠️" })).pipe(
              ignoreElements(),
              catchError(() => EMPTY),
            ),
          ),
    ),
  );
}
