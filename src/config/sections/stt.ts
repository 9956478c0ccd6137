import * as z from "zod";
import { int, nonEmptyString } from "../fields.js";

/**
 * `[stt]`, as OpenAB: audio attachments transcribed through an OpenAI-compatible
 * `/audio/transcriptions` endpoint before the turn runs.
 */
export const sttSection = z
  .strictObject({
    enabled: z.boolean().default(false),
    // Empty with a groq.com base_url: GROQ_API_KEY from the environment, as upstream.
    api_key: z.string().default(""),
    model: nonEmptyString().default("whisper-large-v3-turbo"),
    base_url: nonEmptyString().default("https://api.groq.com/openai/v1"),
    // Post `> 🎤 <transcript>` to the thread before the agent's reply.
    echo_transcript: z.boolean().default(false),
    // turnstream's own: how long one transcription may take, headers and body together. At most an
    // hour, so the timer never overflows.
    timeout_secs: int(1, 3600).default(30),
  })
  .prefault({});
