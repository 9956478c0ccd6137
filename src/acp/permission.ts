import { z } from "zod";

export type PermissionOutcome = { readonly outcome: "selected"; readonly optionId: string } | { readonly outcome: "cancelled" };

const optionSchema = z.looseObject({ optionId: z.string(), kind: z.string().optional() });
export const permissionRequestParams = z.looseObject({
  sessionId: z.string().optional(),
  toolCall: z.looseObject({ title: z.string().nullish() }).optional(),
  options: z.array(optionSchema).optional(),
});

const rejectKinds = new Set(["reject_once", "reject_always"]);

/**
 * OpenAB's auto-answer to `session/request_permission`, in order: an `allow_always` option, else
 * an `allow_once`, else the first option that is not a reject, else cancelled; no `options` at
 * all (legacy agents) selects `allow_always`. Unknown kinds (`allow_persistent`, …) count as
 * "not a reject".
 */
export function choosePermission(options: readonly { readonly optionId: string; readonly kind?: string }[] | undefined): PermissionOutcome {
  if (options === undefined) return { outcome: "selected", optionId: "allow_always" };
  const pick =
    options.find((option) => option.kind === "allow_always") ??
    options.find((option) => option.kind === "allow_once") ??
    options.find((option) => !rejectKinds.has(option.kind ?? ""));
  return pick === undefined ? { outcome: "cancelled" } : { outcome: "selected", optionId: pick.optionId };
}
