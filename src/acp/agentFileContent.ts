import type { AgentFile } from "../../operators/delivery/agentEvent.js";
import { isJsonObject } from "../../operators/ingress/frames/jsonObject.js";

/**
 * The file an `agent_message_chunk`'s content names, read by hand (no schema copies a base64 body
 * of megabytes): an `image` (`data`, base64), a `resource` (`blob`, base64, or `text`), or a
 * `resource_link` whose `uri` is a local `file:` URI. Undefined for anything else: a link to the web
 * is not a file the broker fetches, and a malformed block is the caller's `unknown` update.
 * Nothing is decoded or checked here; `src/turn/files/` resolves what comes out, untrusted.
 */
export function agentFileContent(content: unknown): AgentFile | undefined {
  if (!isJsonObject(content)) return undefined;
  switch (content.type) {
    case "image":
      if (typeof content.data !== "string") return undefined;
      return { ...mediaType(content.mimeType), ...nameOf(content.uri), source: { kind: "base64", data: content.data } };
    case "resource": {
      const resource = content.resource;
      if (!isJsonObject(resource)) return undefined;
      const described = { ...mediaType(resource.mimeType), ...nameOf(resource.uri) };
      if (typeof resource.blob === "string") return { ...described, source: { kind: "base64", data: resource.blob } };
      if (typeof resource.text === "string") return { ...described, source: { kind: "text", text: resource.text } };
      return undefined;
    }
    case "resource_link": {
      const path = typeof content.uri === "string" ? localPath(content.uri) : undefined;
      if (path === undefined) return undefined;
      const name = typeof content.name === "string" && content.name !== "" ? { name: content.name } : nameOf(content.uri);
      return { ...mediaType(content.mimeType), ...name, source: { kind: "path", path } };
    }
    default:
      return undefined;
  }
}

function mediaType(value: unknown): { readonly mimeType?: string } {
  return typeof value === "string" && value !== "" ? { mimeType: value } : {};
}

/** The last segment of a URI's path, as a name to show (cleaned later); none when there is none. */
function nameOf(uri: unknown): { readonly name?: string } {
  if (typeof uri !== "string") return {};
  const path = uri.split(/[?#]/, 1)[0] ?? "";
  const last = path.slice(path.lastIndexOf("/") + 1);
  if (last === "") return {};
  try {
    return { name: decodeURIComponent(last) };
  } catch {
    return { name: last };
  }
}

/** The path of a `file:` URI on this host (`file:///a/b`, `file://localhost/a/b`); undefined for any other URI. */
function localPath(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== "file:" || (url.host !== "" && url.host !== "localhost")) return undefined;
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
}
