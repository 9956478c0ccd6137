import { describe, expect, it } from "vitest";
import { agentFileContent } from "../../src/acp/agentFileContent.js";
import { classifyUpdate } from "../../src/acp/sessionUpdate.js";

const DATA = "iVBORw0KGgo=";

describe("agentFileContent: image", () => {
  it("is base64 with its media type, untouched", () => {
    expect(agentFileContent({ type: "image", data: DATA, mimeType: "image/png" })).toStrictEqual({ mimeType: "image/png", source: { kind: "base64", data: DATA } });
  });

  it("takes its name from the uri's last segment, without query or fragment, percent-decoded", () => {
    expect(agentFileContent({ type: "image", data: DATA, mimeType: "image/png", uri: "https://example.com/img/sales%20chart.png?size=2#top" })).toStrictEqual({
      mimeType: "image/png",
      name: "sales chart.png",
      source: { kind: "base64", data: DATA },
    });
  });

  it("has no name for a uri that ends in a slash, and the raw segment when it does not decode", () => {
    expect(agentFileContent({ type: "image", data: DATA, uri: "https://example.com/img/" })).toStrictEqual({ source: { kind: "base64", data: DATA } });
    expect(agentFileContent({ type: "image", data: DATA, uri: "file:///tmp/100%.png" })).toMatchObject({ name: "100%.png" });
    expect(agentFileContent({ type: "image", data: DATA, uri: 5 })).toStrictEqual({ source: { kind: "base64", data: DATA } });
  });

  it("leaves out an empty or non-string media type (guessed later from the name)", () => {
    expect(agentFileContent({ type: "image", data: DATA, mimeType: "" })).toStrictEqual({ source: { kind: "base64", data: DATA } });
    expect(agentFileContent({ type: "image", data: DATA, mimeType: 7 })).toStrictEqual({ source: { kind: "base64", data: DATA } });
  });

  it("decodes and checks nothing: what is not base64 is the turn's to refuse", () => {
    expect(agentFileContent({ type: "image", data: "not base64!", mimeType: "image/png" })).toMatchObject({ source: { kind: "base64", data: "not base64!" } });
  });

  it("is undefined without data as a string", () => {
    expect(agentFileContent({ type: "image", mimeType: "image/png" })).toBeUndefined();
    expect(agentFileContent({ type: "image", data: null })).toBeUndefined();
    expect(agentFileContent({ type: "image", data: ["x"] })).toBeUndefined();
  });
});

describe("agentFileContent: resource", () => {
  it("is a blob as base64, named from its uri", () => {
    expect(agentFileContent({ type: "resource", resource: { uri: "file:///work/out/report.pdf", mimeType: "application/pdf", blob: "JVBERg==" } })).toStrictEqual({
      mimeType: "application/pdf",
      name: "report.pdf",
      source: { kind: "base64", data: "JVBERg==" },
    });
  });

  it("is text as text", () => {
    expect(agentFileContent({ type: "resource", resource: { uri: "attachment:///notes.md", mimeType: "text/markdown", text: "# Notes\n" } })).toStrictEqual({
      mimeType: "text/markdown",
      name: "notes.md",
      source: { kind: "text", text: "# Notes\n" },
    });
  });

  it("takes the blob when both are there, and an empty text as a file", () => {
    expect(agentFileContent({ type: "resource", resource: { uri: "x", blob: "QQ==", text: "A" } })).toMatchObject({ source: { kind: "base64", data: "QQ==" } });
    expect(agentFileContent({ type: "resource", resource: { uri: "empty.txt", text: "" } })).toStrictEqual({ name: "empty.txt", source: { kind: "text", text: "" } });
  });

  it("is undefined without a blob or text, or without a resource object", () => {
    expect(agentFileContent({ type: "resource", resource: { uri: "file:///x.txt", mimeType: "text/plain" } })).toBeUndefined();
    expect(agentFileContent({ type: "resource", resource: { uri: "file:///x.txt", blob: 5 } })).toBeUndefined();
    expect(agentFileContent({ type: "resource" })).toBeUndefined();
    expect(agentFileContent({ type: "resource", resource: "file:///x.txt" })).toBeUndefined();
    expect(agentFileContent({ type: "resource", resource: null })).toBeUndefined();
    expect(agentFileContent({ type: "resource", resource: [] })).toBeUndefined();
  });
});

describe("agentFileContent: resource_link", () => {
  it("is the local path of a file:// uri, with the link's name and type", () => {
    expect(agentFileContent({ type: "resource_link", uri: "file:///work/out/q3.pdf", name: "Q3 report.pdf", mimeType: "application/pdf", size: 3_000_000 })).toStrictEqual({
      mimeType: "application/pdf",
      name: "Q3 report.pdf",
      source: { kind: "path", path: "/work/out/q3.pdf" },
    });
  });

  it("percent-decodes the path, and names the file from it when the link's name is missing or empty", () => {
    expect(agentFileContent({ type: "resource_link", uri: "file:///work/my%20report%E2%9C%93.pdf" })).toStrictEqual({
      name: "my report✓.pdf",
      source: { kind: "path", path: "/work/my report✓.pdf" },
    });
    expect(agentFileContent({ type: "resource_link", uri: "file:///work/a.txt", name: "" })).toMatchObject({ name: "a.txt" });
    expect(agentFileContent({ type: "resource_link", uri: "file:///work/a.txt", name: 3 })).toMatchObject({ name: "a.txt" });
  });

  it("takes file://localhost/ as this host", () => {
    expect(agentFileContent({ type: "resource_link", uri: "file://localhost/work/chart.png", name: "chart.png" })).toStrictEqual({
      name: "chart.png",
      source: { kind: "path", path: "/work/chart.png" },
    });
  });

  it("hands on a path that leaves the working dir as it is: the path rule is the turn's", () => {
    expect(agentFileContent({ type: "resource_link", uri: "file:///work/../etc/passwd", name: "x" })).toMatchObject({ source: { kind: "path", path: "/etc/passwd" } });
    expect(agentFileContent({ type: "resource_link", uri: "file:///work/%2E%2E/etc/passwd", name: "x" })).toMatchObject({ source: { kind: "path", path: "/etc/passwd" } });
    expect(agentFileContent({ type: "resource_link", uri: "file:///work/a%00b", name: "x" })).toMatchObject({ source: { kind: "path", path: "/work/a\0b" } });
  });

  it("is undefined for a link to the web, another host, or a uri that is not one", () => {
    for (const uri of ["https://example.com/report.pdf", "http://example.com/a.png", "ftp://example.com/a", "file://fileserver/share/a.pdf", "data:image/png;base64,iVBORw==", "/work/a.pdf", "a.pdf", "not a uri", ""]) {
      expect(agentFileContent({ type: "resource_link", uri, name: "a.pdf" }), uri).toBeUndefined();
    }
  });

  it("is undefined for a path that does not percent-decode, or no uri", () => {
    expect(agentFileContent({ type: "resource_link", uri: "file:///work/%E0%A4%A.pdf", name: "a.pdf" })).toBeUndefined();
    expect(agentFileContent({ type: "resource_link", name: "a.pdf" })).toBeUndefined();
    expect(agentFileContent({ type: "resource_link", uri: 42, name: "a.pdf" })).toBeUndefined();
  });
});

describe("agentFileContent: anything else", () => {
  it("is undefined for text, audio, unknown types and what is not an object", () => {
    for (const content of [{ type: "text", text: "hi" }, { type: "audio", data: DATA, mimeType: "audio/wav" }, { type: "video", data: DATA }, { data: DATA }, null, undefined, "image", 5, [{ type: "image", data: DATA }]]) {
      expect(agentFileContent(content), JSON.stringify(content)).toBeUndefined();
    }
  });
});

describe("classifyUpdate: files in agent_message_chunk", () => {
  type Update = Parameters<typeof classifyUpdate>[0];
  const chunk = (content: unknown): Update => ({ sessionUpdate: "agent_message_chunk", content });

  it("is a file event for an image, a resource and a file: link", () => {
    expect(classifyUpdate(chunk({ type: "image", data: DATA, mimeType: "image/png" }))).toStrictEqual({
      type: "file",
      file: { mimeType: "image/png", source: { kind: "base64", data: DATA } },
    });
    expect(classifyUpdate(chunk({ type: "resource", resource: { uri: "file:///w/a.txt", text: "a" } }))).toMatchObject({ type: "file", file: { name: "a.txt" } });
    expect(classifyUpdate(chunk({ type: "resource_link", uri: "file:///w/a.pdf", name: "a.pdf" }))).toMatchObject({ type: "file", file: { source: { kind: "path", path: "/w/a.pdf" } } });
  });

  it("is unknown, with the raw update, for a link to the web and a malformed block", () => {
    for (const content of [
      { type: "resource_link", uri: "https://example.com/a.pdf", name: "a.pdf" },
      { type: "image", mimeType: "image/png" },
      { type: "resource", resource: { uri: "x" } },
      { type: "audio", data: DATA, mimeType: "audio/wav" },
    ]) {
      const raw = chunk(content);
      expect(classifyUpdate(raw), JSON.stringify(content)).toStrictEqual({ type: "unknown", sessionUpdate: "agent_message_chunk", raw });
    }
  });

  it("keeps text as text, and a thought's image is never a file", () => {
    expect(classifyUpdate(chunk({ type: "text", text: "hi" }))).toStrictEqual({ type: "text", text: "hi" });
    const thought: Update = { sessionUpdate: "agent_thought_chunk", content: { type: "image", data: DATA, mimeType: "image/png" } };
    expect(classifyUpdate(thought)).toStrictEqual({ type: "unknown", sessionUpdate: "agent_thought_chunk", raw: thought });
  });
});
