import type { BotApiFailure } from "./botApiFailure.js";

/**
 * Whether Telegram refused a picture as a photo, not as a file: one it cannot read as a picture
 * (`IMAGE_PROCESS_FAILED`), of dimensions it does not take (`PHOTO_INVALID_DIMENSIONS`: width and
 * height over 10000 together, or longer than 20 to 1), or too big for a photo ("file of size … is
 * too big for a photo"). A 400: nothing was posted, so the same file goes again as a document.
 */
export function isPhotoRefusal(failure: BotApiFailure): failure is Extract<BotApiFailure, { kind: "refused" }> {
  return failure.kind === "refused" && failure.status === 400 && /\bPHOTO_[A-Z_]+|IMAGE_PROCESS_FAILED|too big for a photo/i.test(failure.description);
}
