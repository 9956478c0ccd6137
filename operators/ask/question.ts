/**
 * A question the broker asks the person in the chat on an agent's behalf: a permission request
 * (`[agent] permission_mode = "ask"`) or one of an `ask` tool call's questions. Plain data: how it
 * is shown (buttons or a numbered list) and how an answer is read are separate functions.
 */
export interface Question {
  /** A short title above the question (`Deploy`, `Permission`); may be `""`. */
  readonly header: string;
  /** What is asked, already safe for a chat (redacted, cut, one or a few lines). */
  readonly text: string;
  /** Two or more options, in the order they are numbered from 1. */
  readonly options: readonly QuestionOption[];
  /** Several options may be chosen together (the `ask` tool's `multi_select`). */
  readonly multiSelect: boolean;
}

export interface QuestionOption {
  /** What the option is called: its button's label, and a name an answer may give. */
  readonly label: string;
  /** A line that says more, shown under the question; may be `""`. */
  readonly description: string;
}

/** How a question ended: chosen options (indices from 0, in option order), or no answer and why. */
export type QuestionOutcome =
  | { readonly kind: "answered"; readonly chosen: readonly number[]; readonly by: string }
  | { readonly kind: "timeout" }
  | { readonly kind: "cancelled" };
