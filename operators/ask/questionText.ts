import type { Question } from "./question.js";

/** Where a question stands among the ones asked together (`2/3`), when there are several. */
export interface QuestionPlace {
  readonly index: number;
  readonly total: number;
}

/** How a question is shown: its buttons carry the options, or the text lists them by number. */
export type QuestionStyle = "buttons" | "numbered";

/**
 * The body of a question's message: its header (with its place among several), the question, and
 * its options — numbered, or only those with a description when buttons carry them.
 */
export function questionBody(question: Question, style: QuestionStyle, place?: QuestionPlace): string {
  const title = [question.header === "" ? "❓" : `❓ ${question.header}`, place !== undefined && place.total > 1 ? `(${place.index + 1}/${place.total})` : ""].filter((part) => part !== "").join(" ");
  const lines = [title, question.text];
  question.options.forEach((option, i) => {
    const described = option.description === "" ? option.label : `${option.label} — ${option.description}`;
    if (style === "numbered") lines.push(`${i + 1}. ${described}`);
    else if (option.description !== "") lines.push(`• ${described}`);
  });
  return lines.join("\n");
}

/** The line under the body while the question waits: how to answer, and who may. */
export function questionHint(question: Question, style: QuestionStyle, answerer: string | undefined): string {
  const how =
    style === "buttons"
      ? question.multiSelect
        ? "Tap the options you choose, then Done."
        : "Tap an option."
      : question.multiSelect
        ? "Reply with the numbers of the options you choose (1, 3)."
        : "Reply with a number or an option's name.";
  return answerer === undefined ? how : `${how} Only ${answerer} can answer.`;
}

/** The line that replaces the hint once the question is over. */
export function outcomeLine(outcome: QuestionClosing): string {
  switch (outcome.kind) {
    case "answered":
      return `→ ${outcome.labels.join(", ")} (${outcome.by})`;
    case "timeout":
      return outcome.fallback === undefined ? "⏱️ No answer in time." : `⏱️ No answer in time: ${outcome.fallback}.`;
    case "cancelled":
      return "✖️ Cancelled.";
    case "expired":
      return "⌛ Expired.";
  }
}

/** What a closed question's message says happened. */
export type QuestionClosing =
  | { readonly kind: "answered"; readonly labels: readonly string[]; readonly by: string }
  | { readonly kind: "timeout"; readonly fallback?: string }
  | { readonly kind: "cancelled" }
  | { readonly kind: "expired" };

/** A multi-select question's button label: ticked once chosen. */
export function toggleLabel(label: string, chosen: boolean): string {
  return chosen ? `✓ ${label}` : label;
}
