import type { z } from "zod";
import type { QuestionEvent } from "../../operators/delivery/agentEvent.js";
import { permissionQuestion } from "../../operators/ask/permissionQuestion.js";
import type { Question, QuestionOutcome } from "../../operators/ask/question.js";
import type { PreviewPlaces } from "../../operators/delivery/status/toolPreview.js";
import { redactSecrets, type Redact } from "../../operators/delivery/text/redactSecrets.js";
import { decidePermission, requestLocations, type PermissionOutcome, type PermissionPolicy, type permissionRequestParams } from "./permission.js";

/** How `permission_mode = "ask"` asks: where the question goes, how long it waits, and what a timeout gets. */
export interface PermissionAsking {
  /** `[agent] permission_fallback`: the answer when no one answers in time, or no turn runs to ask in. */
  readonly fallback: PermissionPolicy;
  /** `[agent] permission_timeout_secs`, in ms. */
  readonly timeoutMs: number;
  /** Where the agent works and the home it previews paths against. */
  readonly places?: PreviewPlaces;
  readonly redact?: Redact;
  /** Hands the question to the session's running turn; false when none runs. */
  readonly ask: (sessionId: string, event: QuestionEvent) => boolean;
}

/** A permission request as a question, and how the question's outcome answers the request. */
export interface AskedPermission {
  readonly question: Question;
  /** The fallback's option as the chat is told it on a timeout (`Reject`); absent when the fallback picks none. */
  readonly fallbackLabel?: string;
  outcomeOf(outcome: QuestionOutcome | undefined): PermissionOutcome;
}

/** Options the agent did not offer (a legacy agent): allow selects `allow_once`, reject cancels, as the policies answer such a request. */
const legacyOptions = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "", name: "Reject", kind: "reject_once" },
];

/**
 * The question a `session/request_permission` asks in the chat (`permissionQuestion`), and its
 * answer: the chosen option's `optionId`; on a timeout the fallback policy's pick; cancelled
 * otherwise. A legacy request without options offers Allow (`allow_once`) and Reject (cancelled).
 */
export function permissionAsk(request: z.output<typeof permissionRequestParams>, asking: Pick<PermissionAsking, "fallback" | "places" | "redact">): AskedPermission {
  const legacy = request.options === undefined;
  const options = request.options ?? legacyOptions;
  const toolCall = request.toolCall;
  const question = permissionQuestion(
    {
      ...(toolCall?.title == null ? {} : { title: toolCall.title }),
      ...(toolCall?.kind == null ? {} : { kind: toolCall.kind }),
      input: toolCall?.rawInput,
      locations: requestLocations(toolCall?.locations),
      options: options.map((option) => ({ ...(option.name == null ? {} : { name: option.name }), ...(option.kind === undefined ? {} : { kind: option.kind }) })),
    },
    asking.places,
    asking.redact ?? redactSecrets,
  );
  const fallback = decidePermission(request.options, asking.fallback).outcome;
  const fallbackIndex = fallback.outcome === "selected" ? options.findIndex((option) => option.optionId === fallback.optionId) : -1;
  const fallbackLabel = fallbackIndex === -1 ? undefined : question.options[fallbackIndex]?.label;
  return {
    question,
    ...(fallbackLabel === undefined ? {} : { fallbackLabel }),
    outcomeOf: (outcome) => {
      if (outcome?.kind === "timeout") return fallback;
      if (outcome?.kind !== "answered") return { outcome: "cancelled" };
      const option = options[outcome.chosen[0] ?? -1];
      if (option === undefined || (legacy && option.optionId === "")) return { outcome: "cancelled" };
      return { outcome: "selected", optionId: option.optionId };
    },
  };
}
