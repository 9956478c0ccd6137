import { z } from "zod";
import type { PermissionMode, PermissionPolicy } from "../config/sections/agent.js";

export type PermissionOutcome = { readonly outcome: "selected"; readonly optionId: string } | { readonly outcome: "cancelled" };

export type { PermissionMode, PermissionPolicy };

/** An answer and the kind of the option it picked (`none` when cancelled), for the log. */
export interface PermissionDecision {
  readonly outcome: PermissionOutcome;
  readonly kind: string;
}

interface PermissionOption {
  readonly optionId: string;
  readonly kind?: string;
}

// Only `optionId` must be usable; the rest only shows the request in a chat, so a field of the
// wrong type is dropped rather than refusing the request.
const optionalText = z.string().nullish().catch(undefined);
const optionSchema = z.looseObject({ optionId: z.string(), kind: z.string().optional(), name: optionalText });
const locationSchema = z.looseObject({ path: z.string() });
export const permissionRequestParams = z.looseObject({
  sessionId: z.string().optional(),
  toolCall: z
    .looseObject({
      title: optionalText,
      kind: optionalText,
      rawInput: z.unknown().optional(),
      locations: z.array(z.unknown()).nullish().catch(undefined),
    })
    .optional(),
  options: z.array(optionSchema).optional(),
});

/** The paths a request's tool call names (`locations[].path`), the malformed ones left out. */
export function requestLocations(locations: readonly unknown[] | null | undefined): string[] {
  return (locations ?? []).flatMap((location) => {
    const parsed = locationSchema.safeParse(location);
    return parsed.success ? [parsed.data.path] : [];
  });
}

const rejectKinds = new Set(["reject_once", "reject_always"]);
const cancelled: PermissionDecision = { outcome: { outcome: "cancelled" }, kind: "none" };

/**
 * The answer to `session/request_permission` under `mode`:
 *
 * - `allow_always` (OpenAB's rule, the default): an `allow_always` option, else an `allow_once`,
 *   else the first option that is not a reject, else cancelled; no `options` at all (legacy
 *   agents) selects `allow_always`. Unknown kinds (`allow_persistent`, …) count as "not a reject".
 * - `allow_once`: an `allow_once` option, else `reject_once`, else cancelled; no `options`
 *   selects `allow_once`.
 * - `reject`: a `reject_once` option, else cancelled; no `options` is cancelled.
 *
 * Only `allow_always` ever picks an `*_always` option or an unknown kind: the other two modes never
 * ask the agent to remember a decision, so they leave no lasting rule in the agent's home.
 */
export function decidePermission(options: readonly PermissionOption[] | undefined, mode: PermissionPolicy): PermissionDecision {
  if (options === undefined) {
    if (mode === "reject") return cancelled;
    return { outcome: { outcome: "selected", optionId: mode }, kind: mode };
  }
  const ofKind = (kind: string) => options.find((option) => option.kind === kind);
  const pick =
    mode === "allow_always"
      ? (ofKind("allow_always") ?? ofKind("allow_once") ?? options.find((option) => !rejectKinds.has(option.kind ?? "")))
      : mode === "allow_once"
        ? (ofKind("allow_once") ?? ofKind("reject_once"))
        : ofKind("reject_once");
  return pick === undefined ? cancelled : { outcome: { outcome: "selected", optionId: pick.optionId }, kind: pick.kind ?? "unknown" };
}

/** OpenAB's auto-answer rule (`permission_mode = "allow_always"`). */
export function choosePermission(options: readonly PermissionOption[] | undefined): PermissionOutcome {
  return decidePermission(options, "allow_always").outcome;
}
