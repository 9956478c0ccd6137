import { InvalidSubjectError } from "./errors.js";

/** Where a subject is used decides whether it may contain wildcards: subscriptions and consumer filters may, publishes may not. */
export interface SubjectRules {
  readonly wildcards: boolean;
}

const WHITESPACE = /\s/;

/**
 * Throws `InvalidSubjectError` unless `subject` is a NATS subject: dot-separated non-empty tokens
 * without whitespace, where `*` and `>` appear only as whole tokens, `>` only as the last token,
 * and neither of them unless `rules.wildcards` allows it.
 */
export function validateSubject(subject: string, rules: SubjectRules): void {
  if (subject === "") throw new InvalidSubjectError(subject, "empty subject");
  if (WHITESPACE.test(subject)) throw new InvalidSubjectError(subject, "contains whitespace");
  const tokens = subject.split(".");
  for (const [index, token] of tokens.entries()) {
    if (token === "") throw new InvalidSubjectError(subject, "empty token");
    if (token === "*" || token === ">") {
      if (!rules.wildcards) throw new InvalidSubjectError(subject, "wildcards are not allowed here");
      if (token === ">" && index !== tokens.length - 1) {
        throw new InvalidSubjectError(subject, "'>' must be the last token");
      }
    } else if (token.includes("*") || token.includes(">")) {
      throw new InvalidSubjectError(subject, "wildcards must be whole tokens");
    }
  }
}

/** Whether `subject` contains a wildcard token; patterns without one match only themselves. */
export function hasWildcards(subject: string): boolean {
  return subject.includes("*") || subject.includes(">");
}

/**
 * Whether `subject` falls under `pattern`: `*` matches exactly one token, `>` one or more trailing
 * tokens, any other token only itself. Both arguments are expected to be valid subjects.
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  if (!hasWildcards(pattern)) return pattern === subject;
  const wanted = pattern.split(".");
  const tokens = subject.split(".");
  for (const [index, want] of wanted.entries()) {
    if (want === ">") return tokens.length > index;
    const token = tokens[index];
    if (token === undefined || (want !== "*" && want !== token)) return false;
  }
  return wanted.length === tokens.length;
}
