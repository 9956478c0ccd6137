import { DiscordApiError, type FieldError } from "./discordApiError.js";
import { FormErrors, isObject, lengthOf, maxLength, notString, required } from "./formErrors.js";
import type { RouteArgs } from "./restRouter.js";

/** What a bot may upload per file to a server without boosts (docs: Reference › Uploading Files, "10 MiB"). */
export const UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024;

/** A file the message gets: the name it shows, its type and its bytes. */
export interface NewFile {
  readonly filename: string;
  readonly contentType: string;
  readonly bytes: Uint8Array;
}

/** A body over the upload limit, as Discord answers it: HTTP 413, JSON code 40005. */
export const entityTooLarge = () => new DiscordApiError(413, { message: "Request entity too large", code: 40005 });

const FILE_FIELD = /^files\[(\d{1,20})\]$/;
const FILENAME_LIMIT = 1024;
// The docs state the rule, not Discord's wording for breaking it: these codes and messages are the fake's.
const notAFilePart: FieldError = { code: "FILE_FIELD_WITHOUT_FILENAME", message: "files[n] needs a Content-Disposition with a filename." };
const badFileField: FieldError = { code: "FILE_FIELD_NAME_INVALID", message: "File fields are named files[n]." };
const duplicateFileField: FieldError = { code: "FILE_FIELD_DUPLICATE", message: "Each files[n] is named once." };
const unknownPlaceholder: FieldError = { code: "ATTACHMENT_NOT_FOUND", message: "No files[n] was uploaded for this id." };

/**
 * The files a message body uploads, checked as the docs' "Uploading Files" asks, each refusal in
 * one 50035: every file part named `files[n]`, each name once, each with a filename (a part whose
 * Content-Disposition has none arrives as a text field); none over `limitBytes` (413, code 40005,
 * before anything else, as Discord refuses the body). The JSON's `attachments` name new files by
 * their `n`: on a new message every entry must name an uploaded `files[n]` (an edit's may name the
 * message's attachments instead), and an entry's `filename` (a string of 1 to 1024 characters) is
 * the name the file shows. Returns the files in the order they came.
 */
export function readUploads(json: unknown, args: Pick<RouteArgs, "files" | "textFields">, limitBytes: number, forEdit: boolean): NewFile[] {
  if (args.files.some((file) => file.bytes.byteLength > limitBytes)) throw entityTooLarge();
  const errors = new FormErrors();
  for (const field of args.textFields) if (FILE_FIELD.test(field)) errors.add([field], notAFilePart);
  const byPlaceholder = new Map<string, number>();
  args.files.forEach((file, index) => {
    const placeholder = FILE_FIELD.exec(file.field)?.[1];
    if (placeholder === undefined) errors.add([file.field], badFileField);
    else if (byPlaceholder.has(String(BigInt(placeholder)))) errors.add([file.field], duplicateFileField);
    else byPlaceholder.set(String(BigInt(placeholder)), index);
    if (file.filename === "") errors.add([file.field], notAFilePart);
  });
  const names = new Map<number, string>();
  const entries = isObject(json) && Array.isArray(json.attachments) ? json.attachments : [];
  entries.forEach((entry: unknown, at) => {
    if (!isObject(entry)) return; // readMessageFields refuses it
    const index = placeholderOf(entry.id, byPlaceholder);
    if (index === undefined) {
      if (!forEdit) errors.add(["attachments", at, "id"], unknownPlaceholder);
      return;
    }
    const name = entry.filename;
    if (name === undefined || name === null) return;
    if (typeof name !== "string") errors.add(["attachments", at, "filename"], notString(name));
    else if (name === "") errors.add(["attachments", at, "filename"], required);
    else if (lengthOf(name) > FILENAME_LIMIT) errors.add(["attachments", at, "filename"], maxLength(FILENAME_LIMIT));
    else names.set(index, name);
  });
  errors.throwIfAny();
  return args.files.map((file, index) => ({ filename: names.get(index) ?? file.filename, contentType: file.contentType, bytes: file.bytes }));
}

/** The index of the uploaded file an attachment id names by its `n` (a number, or its decimal text). */
function placeholderOf(id: unknown, byPlaceholder: ReadonlyMap<string, number>): number | undefined {
  const text = typeof id === "number" && Number.isSafeInteger(id) && id >= 0 ? String(id) : typeof id === "string" && /^\d{1,20}$/.test(id) ? String(BigInt(id)) : undefined;
  return text === undefined ? undefined : byPlaceholder.get(text);
}
