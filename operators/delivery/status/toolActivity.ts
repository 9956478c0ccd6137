import { redactSecrets, type Redact } from "../text/redactSecrets.js";
import { firstScalar, normalise, previewText, truncate, type PreviewPlaces, type Truncation } from "./toolPreview.js";

/** What the activity line of one tool call is made from: the agent's name or title, ACP `kind`, and `rawInput`. */
export interface ToolCallInfo {
  readonly title: string;
  readonly kind?: string;
  readonly input?: unknown;
}

interface Family {
  readonly icon: string;
  /** The action, and the action with a preview (`%s`). */
  readonly action: string;
  readonly withPreview?: string;
  readonly fields?: readonly string[] | "any";
  readonly truncation?: Truncation;
}

const PATH_FIELDS = ["file_path", "path", "destination", "filePath", "abs_path"];

const FAMILIES = {
  webSearch: { icon: "🌐", action: "Searching the web", withPreview: "Searching the web for %s", fields: ["query", "q"], truncation: "head" },
  browse: { icon: "🌐", action: "Browsing", withPreview: "Browsing %s", fields: ["url", "uri"], truncation: "head" },
  read: { icon: "📖", action: "Reading", withPreview: "Reading %s", fields: PATH_FIELDS, truncation: "middle" },
  skill: { icon: "📚", action: "Reading a skill", withPreview: 'Reading "%s"', fields: ["name", "skill"], truncation: "head" },
  search: { icon: "🔎", action: "Searching files", withPreview: "Searching files for %s", fields: ["pattern", "query", "regex"], truncation: "head" },
  write: { icon: "📝", action: "Writing" },
  edit: { icon: "✏️", action: "Editing" },
  run: { icon: "🖥️", action: "Running a command", withPreview: "Running %s", fields: ["command", "cmd", "argv"], truncation: "balanced" },
  code: { icon: "🐍", action: "Running code" },
  image: { icon: "👁️", action: "Looking at the image" },
  recall: { icon: "🧠", action: "Recalling memory" },
  remember: { icon: "🧠", action: "Updating memory" },
} as const satisfies Record<string, Family>;

/** Tool names (lower-cased, without separators) of each family, as agents spell them. */
const NAMES: readonly [RegExp, Family][] = [
  [/^(websearch|search(the)?web|googlesearch)$/, FAMILIES.webSearch],
  [/^(webfetch|fetch|browse|browser|openurl|fetchurl)$/, FAMILIES.browse],
  [/^(read|readfile|view|cat|openfile)$/, FAMILIES.read],
  [/^(skill|readskill)$/, FAMILIES.skill],
  [/^(glob|grep|search|find|searchfiles|ripgrep|rg)$/, FAMILIES.search],
  [/^(write|writefile|create|createfile)$/, FAMILIES.write],
  [/^(edit|multiedit|strreplace|applypatch|patch|editfile|strreplacebasededittool)$/, FAMILIES.edit],
  [/^(bash|shell|exec|execute|terminal|run|runcommand|localshell)$/, FAMILIES.run],
  [/^(code|python|runcode|notebookedit|jupyter)$/, FAMILIES.code],
  [/^(image|viewimage|screenshot|lookatimage)$/, FAMILIES.image],
  [/^(memoryrecall|recall|recallmemory|readmemory)$/, FAMILIES.recall],
  [/^(memorywrite|remember|writememory|updatememory)$/, FAMILIES.remember],
];

/** ACP `kind`s, for agents whose titles are prose ("Reading configuration file"). */
const KINDS: Readonly<Record<string, Family>> = {
  read: FAMILIES.read,
  edit: FAMILIES.edit,
  delete: FAMILIES.edit,
  move: FAMILIES.edit,
  search: FAMILIES.search,
  execute: FAMILIES.run,
  fetch: FAMILIES.browse,
};

/**
 * One tool call's line in the activity message, as mono-agent writes it: a family icon, an action
 * and at most one scalar argument as a preview (`📖 Reading src/a.ts`, `🖥️ Running npm test`,
 * `🔧 Create issue …` for anything else). The family comes from the tool's name, else its ACP
 * `kind`; memory is never previewed; credentials are redacted (by `redact`) before anything is cut.
 */
export function toolActivityLine(call: ToolCallInfo, places: PreviewPlaces = {}, redact: Redact = redactSecrets): string {
  const leaf = leafName(call.title);
  const family = NAMES.find(([pattern]) => pattern.test(leaf.replace(/[^a-z0-9]/gi, "").toLowerCase()))?.[1] ?? (call.kind === undefined ? undefined : KINDS[call.kind]);
  if (family === undefined) {
    const name = humanize(leaf, redact);
    const scalar = firstScalar(call.input, "any");
    const preview = scalar === undefined ? "" : previewText(scalar, "head", places, redact);
    return preview === "" ? `🔧 ${name}` : `🔧 ${name} ${preview}`;
  }
  const { fields, withPreview, truncation = "head" } = family as Family;
  const scalar = fields === undefined ? undefined : firstScalar(call.input, fields);
  const preview = scalar === undefined ? "" : previewText(scalar, truncation, places, redact);
  if (preview === "" || withPreview === undefined) return `${family.icon} ${family.action}`;
  return `${family.icon} ${withPreview.replace("%s", preview)}`;
}

/** An MCP tool's own name (`mcp__github__create_issue` → `create_issue`), else the title as given. */
function leafName(title: string): string {
  const parts = title.split("__");
  return (parts.length >= 3 && parts[0] === "mcp" ? parts[parts.length - 1] : title) ?? title;
}

/**
 * `create_issue` / `createIssue` → `Create issue`; at most 40 code points. A title may be a whole
 * command: it is redacted before lower-casing (which would hide a token's shape) and before the cut.
 */
function humanize(name: string, redact: Redact): string {
  const words = redact(normalise(name))
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_\s-]+/g, " ")
    .trim()
    .toLowerCase();
  const text = words === "" ? "tool" : words;
  return truncate(text.charAt(0).toUpperCase() + text.slice(1), "head");
}
