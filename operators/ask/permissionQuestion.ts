import { toolActivityLine } from "../delivery/status/toolActivity.js";
import { previewText, type PreviewPlaces } from "../delivery/status/toolPreview.js";
import { redactSecrets, type Redact } from "../delivery/text/redactSecrets.js";
import { labelText } from "./labelText.js";
import type { Question } from "./question.js";

/** What a `session/request_permission` says, as the ACP client read it (all of it the agent's, untrusted). */
export interface PermissionRequest {
  readonly title?: string;
  readonly kind?: string;
  readonly input?: unknown;
  readonly locations: readonly string[];
  readonly options: readonly { readonly name?: string; readonly kind?: string }[];
}

/** Locations listed by name; the rest are counted. */
const MAX_LOCATIONS = 3;
/** A button label's bound (Telegram's and the tightest of the platforms' sensible ones). */
export const OPTION_LABEL_CHARS = 64;

const kindNames: Readonly<Record<string, string>> = {
  allow_once: "Allow once",
  allow_always: "Allow always",
  reject_once: "Reject",
  reject_always: "Reject always",
};

/**
 * A permission request as a question for the chat: what the agent wants to do, as the activity
 * message previews a tool call (family icon, action, one redacted argument cut to 40 code points),
 * its kind, the locations it names (as paths are previewed), and its options by their names (by
 * their kinds where an option has no name). Everything is redacted before it is cut.
 */
export function permissionQuestion(request: PermissionRequest, places: PreviewPlaces = {}, redact: Redact = redactSecrets): Question {
  const title = request.title ?? "";
  const action = toolActivityLine({ title, ...(request.kind === undefined ? {} : { kind: request.kind }), input: request.input }, places, redact);
  const lines = [`The agent asks to go ahead: ${action}`];
  if (title !== "") lines.push(`${previewText(title, "head", places, redact)}${request.kind === undefined ? "" : ` (${previewText(request.kind, "head", {}, redact)})`}`);
  if (request.locations.length > 0) {
    const named = request.locations.slice(0, MAX_LOCATIONS).map((path) => previewText(path, "middle", places, redact));
    const more = request.locations.length - named.length;
    lines.push(`📄 ${named.join(", ")}${more > 0 ? ` (+${more} more)` : ""}`);
  }
  return {
    header: "Permission",
    text: lines.join("\n"),
    options: request.options.map((option, i) => ({ label: optionLabel(option, i, redact), description: "" })),
    multiSelect: false,
  };
}

/** An option's name as a one-line label, else its kind's, else its number. */
function optionLabel(option: { readonly name?: string; readonly kind?: string }, index: number, redact: Redact): string {
  const name = option.name === undefined ? "" : labelText(option.name, OPTION_LABEL_CHARS, redact);
  if (name !== "") return name;
  return kindNames[option.kind ?? ""] ?? `Option ${index + 1}`;
}
