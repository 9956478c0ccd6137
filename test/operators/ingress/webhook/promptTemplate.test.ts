import { describe, expect, it } from "vitest";
import { parsePromptTemplate, PromptTemplateError } from "../../../../operators/ingress/webhook/promptTemplate.js";

describe("parsePromptTemplate", () => {
  it("splits text and {{pointer}} substitutions, spaces inside the braces ignored", () => {
    expect(parsePromptTemplate("New alert: {{/alert/title}} ({{ /alert/severity }})")).toEqual([
      { kind: "text", text: "New alert: " },
      { kind: "pointer", pointer: ["alert", "title"] },
      { kind: "text", text: " (" },
      { kind: "pointer", pointer: ["alert", "severity"] },
      { kind: "text", text: ")" },
    ]);
    expect(parsePromptTemplate("{{}}")).toEqual([{ kind: "pointer", pointer: [] }]);
    expect(parsePromptTemplate("plain }} text")).toEqual([{ kind: "text", text: "plain }} text" }]);
    expect(parsePromptTemplate("")).toEqual([]);
  });

  it("refuses an unclosed {{ and a substitution that is not a pointer, saying where", () => {
    expect(() => parsePromptTemplate("a {{/x}} b {{/y")).toThrow(new PromptTemplateError('"{{" at character 12 is never closed with "}}"'));
    expect(() => parsePromptTemplate("a {{title}}")).toThrow('{{title}} at character 3: "title" is not a JSON pointer (it starts with "/", or is "" for the whole body)');
  });

  it("is linear in its input", () => {
    expect(parsePromptTemplate("{{/a}}".repeat(50_000))).toHaveLength(50_000);
    expect(() => parsePromptTemplate("{{".repeat(100_000))).toThrow(PromptTemplateError);
  });
});
