import { describe, expect, it } from "vitest";
import { fallbackFileName, isInlineImage, mediaTypeOf } from "../../../../operators/delivery/files/mediaType.js";

describe("mediaTypeOf", () => {
  it("takes a well-formed given type, lower-cased and without parameters", () => {
    expect(mediaTypeOf("chart.png", "image/png")).toBe("image/png");
    expect(mediaTypeOf("x", "Image/PNG")).toBe("image/png");
    expect(mediaTypeOf("notes", "text/plain; charset=utf-8")).toBe("text/plain");
    expect(mediaTypeOf("x", "  application/vnd.openxmlformats-officedocument.wordprocessingml.document  ")).toBe(
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
    expect(mediaTypeOf("x", "image/svg+xml")).toBe("image/svg+xml");
  });

  it("prefers the given type over the extension", () => {
    expect(mediaTypeOf("chart.png", "application/pdf")).toBe("application/pdf");
  });

  it("falls back to the extension for a malformed given type", () => {
    for (const given of ["", "png", "image/", "/png", "image/png/x", "image /png", "im age/png", "image/png\nx", "é/png", `${"a".repeat(128)}/png`]) {
      expect(mediaTypeOf("chart.png", given), JSON.stringify(given)).toBe("image/png");
    }
  });

  it("reads the extension case-insensitively, the last one only", () => {
    expect(mediaTypeOf("CHART.PNG")).toBe("image/png");
    expect(mediaTypeOf("photo.JpEg")).toBe("image/jpeg");
    expect(mediaTypeOf("photo.jpg")).toBe("image/jpeg");
    expect(mediaTypeOf("fix.patch")).toBe("text/x-diff");
    expect(mediaTypeOf("fix.diff")).toBe("text/x-diff");
    expect(mediaTypeOf("report.pdf")).toBe("application/pdf");
    expect(mediaTypeOf("data.csv")).toBe("text/csv");
    expect(mediaTypeOf("a.tar.gz")).toBe("application/octet-stream");
    expect(mediaTypeOf("a.png.exe")).toBe("application/octet-stream");
  });

  it("is application/octet-stream for no extension, an unknown one, or nothing at all", () => {
    expect(mediaTypeOf("Makefile")).toBe("application/octet-stream");
    expect(mediaTypeOf("trailing.")).toBe("application/octet-stream");
    expect(mediaTypeOf("x.heic")).toBe("application/octet-stream");
    expect(mediaTypeOf("")).toBe("application/octet-stream");
  });

  it("is a media type for an extension named like an Object.prototype key (the name is the agent's)", () => {
    for (const extension of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
      expect(mediaTypeOf(`evil.${extension}`), extension).toBe("application/octet-stream");
    }
  });
});

describe("isInlineImage", () => {
  it("is true for the pictures every platform shows inline", () => {
    for (const type of ["image/png", "image/jpeg", "image/gif", "image/webp"]) expect(isInlineImage(type), type).toBe(true);
  });

  it("is false for an SVG (Telegram refuses it as a photo), other images and documents", () => {
    for (const type of ["image/svg+xml", "image/heic", "image/bmp", "application/pdf", "text/plain", "application/octet-stream", ""]) {
      expect(isInlineImage(type), type).toBe(false);
    }
  });

  it("expects a cleaned type (what mediaTypeOf returns)", () => {
    expect(isInlineImage("image/PNG")).toBe(false);
    expect(isInlineImage(mediaTypeOf("x", "image/PNG"))).toBe(true);
  });
});

describe("fallbackFileName", () => {
  it("is image.<ext> for a known picture, file.<ext> for a known document (the first extension listed)", () => {
    expect(fallbackFileName("image/png")).toBe("image.png");
    expect(fallbackFileName("image/jpeg")).toBe("image.jpg");
    expect(fallbackFileName("image/svg+xml")).toBe("image.svg");
    expect(fallbackFileName("application/pdf")).toBe("file.pdf");
    expect(fallbackFileName("text/x-diff")).toBe("file.patch");
    expect(fallbackFileName("text/plain")).toBe("file.txt");
  });

  it("is image or file alone for a type with no known extension", () => {
    expect(fallbackFileName("image/heic")).toBe("image");
    expect(fallbackFileName("application/octet-stream")).toBe("file");
    expect(fallbackFileName("application/x-thing")).toBe("file");
  });

  it("round-trips through mediaTypeOf for every known type", () => {
    for (const type of ["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf", "application/zip", "text/csv", "audio/mpeg", "video/mp4"]) {
      expect(mediaTypeOf(fallbackFileName(type)), type).toBe(type);
    }
  });
});
