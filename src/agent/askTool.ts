import { z } from "zod";
import type { Question, QuestionOutcome } from "../../operators/ask/question.js";
import { labelText } from "../../operators/ask/labelText.js";
import { untrustedText } from "../../operators/ingress/untrustedText.js";
import type { ChatTool } from "./replyTool.js";

/** The tool's name, as the model sees it (`mcp__turnstream__ask`). */
export const ASK_TOOL_NAME = "ask";

/** One `ask` call asks at most this many questions. */
export const MAX_ASK_QUESTIONS = 5;

const option = z.strictObject({
  label: z.string().min(1).max(40).describe("The option's name: its button, or what the person may type."),
  description: z.string().max(120).describe("One line that says what choosing it means."),
});

const question = z.strictObject({
  header: z.string().min(1).max(24).describe("A short title (a word or two)."),
  question: z.string().min(1).max(300).describe("The question, complete and clear on its own."),
  options: z.array(option).min(2).max(3).describe("Two or three options."),
  multi_select: z.boolean().describe("true: the person may choose several options."),
});

/** The `ask` tool's input: one to five questions, each with two or three options. Strict: unknown fields are refused. */
export const askInputSchema = z.strictObject({
  questions: z.array(question).min(1).max(MAX_ASK_QUESTIONS).describe("One to five questions, asked one after another."),
});

export type AskInput = z.output<typeof askInputSchema>;

export const ASK_TOOL_DESCRIPTION =
  "Ask the person in the chat one to five multiple-choice questions and wait for the answers (buttons, or a numbered list they answer by number). " +
  "Use it only when you cannot go on without their decision. Returns each question's chosen options, or marks it unanswered (timed out or cancelled).";

/** The `ask` tool as an OpenAI-compatible chat-completions `tools[]` entry. */
export function askTool(): ChatTool {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(askInputSchema) as Record<string, unknown>;
  return { type: "function", function: { name: ASK_TOOL_NAME, description: ASK_TOOL_DESCRIPTION, parameters } };
}

/** The questions of a checked `ask` input, as the chat shows them: every text one clean line (the model's, untrusted). */
export function askQuestions(input: AskInput): Question[] {
  const line = (text: string, maxChars: number) => labelText(text, maxChars);
  return input.questions.map((q) => ({
    header: line(q.header, 32),
    text: untrustedText(q.question, { multiline: true, maxChars: 320 }).trim(),
    options: q.options.map((o) => ({ label: line(o.label, 40), description: o.description === "" ? "" : line(o.description, 120) })),
    multiSelect: q.multi_select,
  }));
}

/** The `ask` tool's result (`structuredContent`): each question in order, answered or not and why. */
export const askOutputSchema = z.object({
  answers: z.array(
    z.union([
      z.object({ header: z.string(), question: z.string(), answered: z.literal(true), selected: z.array(z.string()), answered_by: z.string() }),
      z.object({ header: z.string(), question: z.string(), answered: z.literal(false), reason: z.enum(["timeout", "cancelled"]) }),
    ]),
  ),
});

/** One question's answer as the tool returns it. */
export type AskAnswer =
  | { readonly header: string; readonly question: string; readonly answered: true; readonly selected: readonly string[]; readonly answered_by: string }
  | { readonly header: string; readonly question: string; readonly answered: false; readonly reason: "timeout" | "cancelled" };

/** The structured result of an `ask` call: each question in order, answered or marked unanswered with why. */
export function askAnswers(input: AskInput, outcomes: readonly QuestionOutcome[]): { readonly answers: readonly AskAnswer[] } {
  return {
    answers: input.questions.map((q, i): AskAnswer => {
      const outcome = outcomes[i] ?? { kind: "cancelled" };
      if (outcome.kind !== "answered") return { header: q.header, question: q.question, answered: false, reason: outcome.kind };
      return { header: q.header, question: q.question, answered: true, selected: outcome.chosen.map((index) => q.options[index]?.label ?? ""), answered_by: outcome.by };
    }),
  };
}
