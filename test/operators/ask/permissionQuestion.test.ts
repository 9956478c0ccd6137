import { describe, expect, it } from "vitest";
import { mayAnswer } from "../../../operators/ask/mayAnswer.js";
import { permissionQuestion } from "../../../operators/ask/permissionQuestion.js";

describe("permissionQuestion", () => {
  it("says what the agent wants to do as the activity message previews it, its kind, locations and options by name", () => {
    const question = permissionQuestion(
      {
        title: "Run npm test",
        kind: "execute",
        input: { command: "npm test -- --run" },
        locations: ["/srv/agent/src/a.ts", "/home/rob/b.ts", "/srv/agent/c.ts", "/srv/agent/d.ts"],
        options: [
          { name: "Allow once", kind: "allow_once" },
          { kind: "allow_always" },
          { name: "  ", kind: "reject_once" },
          { name: "" },
        ],
      },
      { workspaceRoot: "/srv/agent", home: "/home/rob" },
    );
    expect(question.header).toBe("Permission");
    expect(question.text).toBe("The agent asks to go ahead: 🖥️ Running npm test -- --run\nRun npm test (execute)\n📄 src/a.ts, ~/b.ts, c.ts (+1 more)");
    expect(question.options.map((option) => option.label)).toEqual(["Allow once", "Allow always", "Reject", "Option 4"]);
    expect(question.multiSelect).toBe(false);
  });

  it("redacts secrets before anything is cut, in the title, the preview and the option names", () => {
    const question = permissionQuestion({
      title: "curl -H 'Authorization: Bearer abc123def' https://x.io",
      kind: "execute",
      input: { command: "export OPENAI_API_KEY=sk-proj-abcdefghijklmnop && run" },
      locations: [],
      options: [{ name: "Allow ghp_abcdefghijklmnopqrstuvwxyz123456", kind: "allow_once" }],
    });
    expect(question.text).not.toMatch(/abc123def|sk-proj|ghp_/u);
    expect(question.options[0]?.label).toBe("Allow [redacted]");
  });

  it("keeps a hostile title one clean bounded line", () => {
    const hostile = "\u001b[31mboom\u001b[0m\u0000\r\n\u202eevil ".repeat(10_000);
    const question = permissionQuestion({ title: `Edit ${hostile}`, locations: [], options: [{ name: hostile, kind: "allow_once" }] });
    for (const line of question.text.split("\n")) expect([...line].length).toBeLessThanOrEqual(120);
    expect(question.text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u202e]/u);
    expect([...(question.options[0]?.label ?? "")].length).toBeLessThanOrEqual(64);
  });
});

describe("mayAnswer", () => {
  it("lets only the requester answer under requester, anyone let in under allowed_users", () => {
    expect(mayAnswer("u1", "u1", "requester")).toBe(true);
    expect(mayAnswer("u2", "u1", "requester")).toBe(false);
    expect(mayAnswer("u2", undefined, "requester")).toBe(false);
    expect(mayAnswer("u2", "u1", "allowed_users")).toBe(true);
  });
});

describe("labelText", () => {
  it("cuts a long label with … and no count, never inside a surrogate pair, after redacting", async () => {
    const { labelText } = await import("../../../operators/ask/labelText.js");
    const long = "Yes, and don't ask again for commands that start with `npm run build -- --watch`";
    const cut = labelText(long, 64);
    expect(Array.from(cut).length).toBeLessThanOrEqual(64);
    expect(Array.from(cut).length).toBeGreaterThan(60);
    expect(cut.endsWith("…")).toBe(true);
    expect(cut).not.toMatch(/\(\+\d+ chars\)/u);
    expect(labelText("🎉".repeat(70), 10)).toBe(`${"🎉".repeat(9)}…`);
    expect(labelText("  short  ", 64)).toBe("short");
    expect(labelText("token ghp_abcdefghijklmnopqrstuvwxyz123456 here", 64, (t) => t.replace(/ghp_\w+/gu, "[redacted]"))).toBe("token [redacted] here");
  });
});
