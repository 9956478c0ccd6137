/** A picture's format and size in pixels, read from its header. */
export interface ImageSize {
  readonly format: "png" | "jpeg" | "gif" | "webp";
  readonly width: number;
  readonly height: number;
}

/**
 * The size of a PNG, JPEG, GIF or WebP picture, from its header alone (the fake decodes no pixels);
 * undefined for anything else or a header cut short: what Telegram refuses as `IMAGE_PROCESS_FAILED`
 * when it is sent as a photo.
 */
export function imageSize(bytes: Buffer): ImageSize | undefined {
  if (bytes.length >= 24 && bytes.subarray(0, 8).equals(PNG_SIGNATURE) && bytes.toString("latin1", 12, 16) === "IHDR") {
    return { format: "png", width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 10 && /^GIF8[79]a$/.test(bytes.toString("latin1", 0, 6))) {
    return { format: "gif", width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegSize(bytes);
  if (bytes.length >= 30 && bytes.toString("latin1", 0, 4) === "RIFF" && bytes.toString("latin1", 8, 12) === "WEBP") return webpSize(bytes);
  return undefined;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** The start-of-frame markers, whose segment holds the height and width. */
const JPEG_FRAMES = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** Walks the JPEG's segments to its first frame header. */
function jpegSize(bytes: Buffer): ImageSize | undefined {
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd9)) {
      at += 2;
      continue;
    }
    if (JPEG_FRAMES.has(marker)) return at + 9 <= bytes.length ? { format: "jpeg", height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) } : undefined;
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return undefined;
}

/** The lossy (`VP8 `), lossless (`VP8L`) or extended (`VP8X`) WebP header. */
function webpSize(bytes: Buffer): ImageSize | undefined {
  const chunk = bytes.toString("latin1", 12, 16);
  if (chunk === "VP8 ") return { format: "webp", width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  if (chunk === "VP8L") {
    const bits = bytes.readUInt32LE(21);
    return { format: "webp", width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8X") return { format: "webp", width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
  return undefined;
}

/** A PNG's signature and header chunk for a picture of this size, padded to `size` bytes: enough for `imageSize`, as for Telegram's check. */
export function pngHeader(width: number, height: number, size = 33): Buffer {
  const header = Buffer.alloc(Math.max(size, 33));
  PNG_SIGNATURE.copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write("IHDR", 12, "latin1");
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  header.writeUInt8(8, 24);
  header.writeUInt8(6, 25);
  return header;
}
