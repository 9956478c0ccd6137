import type { Question } from "./question.js";

/** Longest message read as an answer: a number list or an option's name is never longer. */
const MAX_ANSWER_CHARS = 200;

/**
 * The options a chat message chooses for a question shown as a numbered list, or `undefined`
 * when the message is not an answer: an option's number (`2`), for a multi-select question
 * several (`1, 3` or `1 3`), or an option's label (case and surrounding spaces ignored; a leading
 * `@mention` of the bot is dropped). Indices are from 0, ascending, without repeats. Reads at most
 * `MAX_ANSWER_CHARS`, so it is linear in nothing longer.
 */
export function parseAnswer(text: string, question: Question): readonly number[] | undefined {
  if (text.length > MAX_ANSWER_CHARS) return undefined;
  const said = text
    .replace(/^(?:\s*<?@[\w.!&-]+>?[,:]?)+/u, "")
    .trim()
    .replace(/[.!]+$/u, "");
  if (said === "") return undefined;
  const count = question.options.length;
  if (/^\d+(?:\s*[,\s]\s*\d+)*$/u.test(said)) {
    const numbers = said.split(/[,\s]+/u).map(Number);
    if (numbers.length > 1 && !question.multiSelect) return undefined;
    if (numbers.some((n) => n < 1 || n > count)) return undefined;
    return [...new Set(numbers.map((n) => n - 1))].sort((a, b) => a - b);
  }
  const wanted = said.toLowerCase();
  const index = question.options.findIndex((option) => option.label.trim().toLowerCase() === wanted);
  return index === -1 ? undefined : [index];
}
