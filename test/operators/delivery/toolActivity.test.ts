import { describe, expect, it } from "vitest";
import { toolActivityLine } from "../../../operators/delivery/toolActivity.js";
import { previewText, redactSecrets } from "../../../operators/delivery/toolPreview.js";

// mono-agent's executed vectors (`../shared/reference/peers.md` §11.2): workspace root /srv/agent, home /home/rob.
const places = { workspaceRoot: "/srv/agent", home: "/home/rob" };
const line = (title: string, input: unknown, kind?: string) => toolActivityLine({ title, input, ...(kind === undefined ? {} : { kind }) }, places);

describe("toolActivityLine (mono-agent's vectors)", () => {
  it.each([
    ["WebSearch", { query: "best ramen in Kraków open late on Sunday night near the old town" }, "🌐 Searching the web for best ramen in Kraków open late on Sunda…"],
    ["Bash", { command: "curl -H 'Authorization: Bearer abc123def' https://api.x.io/v1?token=zzz&q=1" }, "🖥️ Running curl -H 'Authorizati…v1?token=[redacted]"],
    ["Bash", { command: "mysql -u root -psecret123 -e 'select 1'" }, "🖥️ Running mysql -u root -p[redacted] -e 'select 1'"],
    ["Read", { file_path: "/srv/agent/src/deeply/nested/folder/structure/module/file.ts" }, "📖 Reading src/deeply/ne…r/structure/module/file.ts"],
    ["Read", { file_path: "/home/rob/notes/todo.md" }, "📖 Reading ~/notes/todo.md"],
    ["mcp__github__create_issue", { name: "export OPENAI_API_KEY=sk-proj-abcdefghijklmnop" }, "🔧 Create issue export OPENAI_API_KEY=[redacted]"],
    ["Bash", { command: "git push https://user:pass@github.com/o/r.git" }, "🖥️ Running git push https://github.com/o/r.git"],
    ["WebSearch", {}, "🌐 Searching the web"],
    ["MemoryRecall", { query: "private" }, "🧠 Recalling memory"],
  ])("%s %j → %s", (title, input, expected) => {
    expect(line(title, input)).toBe(expected);
  });

  it("redacts before it cuts (the full Bash vector before truncation)", () => {
    expect(redactSecrets("curl -H 'Authorization: Bearer abc123def' https://api.x.io/v1?token=zzz&q=1")).toBe("curl -H 'Authorization=[redacted] https://api.x.io/v1?token=[redacted]");
  });

  it.each([
    ["psql --password=hunter2 -h db", "psql --password [redacted] -h db"],
    ["curl -u admin:s3cr3t https://x", "curl -u [redacted] https://x"],
    ["echo ghp_abcdefghijklmnopqrstuvwxyz123456", "echo [redacted]"],
    ["TELEGRAM=123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0", "TELEGRAM=[redacted]"],
    ["slack xoxb-123456789012-abcdefghijkl", "slack [redacted]"],
    ["aws AKIAIOSFODNN7EXAMPLE", "aws [redacted]"],
    ["jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "jwt [redacted]"],
    ["curl -H 'Cookie: session=abc' x", "curl -H 'Cookie=[redacted] x"],
  ])("sanitises %s", (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it("uses ACP's kind when the title is prose, and the argv of a command given as an array", () => {
    expect(line("Listing the project", { command: ["bash", "-lc", "ls -la"] }, "execute")).toBe("🖥️ Running bash -lc ls -la");
    expect(line("Reading configuration", { path: "/srv/agent/config.toml" }, "read")).toBe("📖 Reading config.toml");
  });

  it("shows at most one scalar, never an object, and a plain name when there is none", () => {
    expect(line("frobnicate_widgets", { nested: { secret: "x" } })).toBe("🔧 Frobnicate widgets");
    expect(line("doThing", undefined)).toBe("🔧 Do thing");
  });

  it("turns control characters into spaces and collapses whitespace", () => {
    expect(previewText("a\u0000b\n\n  c\u200bd", "head")).toBe("a b c d");
  });

  it("reads at most 4,096 code points of an argument: a 1 MB one previews like a short one", () => {
    expect(line("Bash", { command: `echo ${"x".repeat(1_000_000)}` })).toBe(`🖥️ Running echo ${"x".repeat(15)}…${"x".repeat(19)}`);
  });
});
