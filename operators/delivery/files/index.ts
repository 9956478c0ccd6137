export { fileNotice } from "./fileNotice.js";
export { fallbackFileName, isInlineImage, mediaTypeOf } from "./mediaType.js";
export { maxFileBytes, TELEGRAM_PHOTO_BYTES } from "./maxFileBytes.js";
export { outboundFileName } from "./outboundFileName.js";
export { placeFiles, type ReplyPart } from "./placeFiles.js";
