import type { AgentFile, FileRefusal } from "../../../operators/delivery/agentEvent.js";
import { fallbackFileName, mediaTypeOf } from "../../../operators/delivery/files/mediaType.js";
import { outboundFileName } from "../../../operators/delivery/files/outboundFileName.js";
import { readAllowedFile, type FileRoots, type PathRefusal } from "./readAllowedFile.js";

/** A file the agent made, its bytes in hand and its name and type fit to show. */
export interface ResolvedFile {
  readonly kind: "resolved";
  readonly filename: string;
  readonly mimeType: string;
  readonly bytes: Uint8Array;
}

/** A file that will not be sent: why (the agent's words), what is logged, and what the chat may be told. */
export interface UnresolvedFile {
  readonly kind: "refused";
  readonly reason: FileRefusal;
  /** The stable reason logged: finer than `reason` (a path outside, a symlink, …), never told the agent. */
  readonly logReason: PathRefusal | FileRefusal;
  readonly filename: string;
  /** Known only for a file too big: the conversation is told its name and size. */
  readonly size?: number;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Reads an agent's file within the turn's rules: inline bytes are measured before they are decoded
 * (base64 is never decoded past `maxBytes`), and a path is read only as `readAllowedFile` allows.
 * Every way a path may not be read is the one `not_found` for the agent.
 */
export async function resolveAgentFile(file: AgentFile, roots: FileRoots, maxBytes: number): Promise<ResolvedFile | UnresolvedFile> {
  const given = mediaTypeOf(file.name ?? "", file.mimeType);
  const filename = outboundFileName(file.name ?? (file.source.kind === "path" ? file.source.path : undefined), fallbackFileName(given));
  const mimeType = mediaTypeOf(filename, file.mimeType);
  const refused = (reason: FileRefusal, logReason: PathRefusal | FileRefusal, size?: number): UnresolvedFile => ({
    kind: "refused",
    reason,
    logReason,
    filename,
    ...(size === undefined ? {} : { size }),
  });
  switch (file.source.kind) {
    case "base64": {
      const { data } = file.source;
      const size = decodedLength(data);
      if (size > maxBytes) return refused("too_big", "too_big", size);
      if (data.length % 4 !== 0 || !BASE64.test(data)) return refused("invalid", "invalid");
      return { kind: "resolved", filename, mimeType, bytes: Buffer.from(data, "base64") };
    }
    case "text": {
      const bytes = Buffer.from(file.source.text, "utf8");
      if (bytes.length > maxBytes) return refused("too_big", "too_big", bytes.length);
      return { kind: "resolved", filename, mimeType, bytes };
    }
    case "path": {
      const read = await readAllowedFile(file.source.path, roots, maxBytes);
      if (read.kind === "read") return { kind: "resolved", filename, mimeType, bytes: read.bytes };
      return read.reason === "too_big" ? refused("too_big", "too_big", read.size) : refused("not_found", read.reason);
    }
  }
}

/** The bytes a base64 text decodes to, from its length alone. */
function decodedLength(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
