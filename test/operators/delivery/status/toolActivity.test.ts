import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { toolActivityLine } from "../../../../operators/delivery/status/toolActivity.js";
import { redactSecrets } from "../../../../operators/delivery/text/redactSecrets.js";
import { previewText } from "../../../../operators/delivery/status/toolPreview.js";
import { chatRedaction } from "../../../../src/log/secretScrubber.js";
import { shownFragments } from "../../../helpers/secretFragments.js";
import { expectLinear } from "../../../helpers/linearTime.js";

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

  it("redacts a 1 MB argument whole, in linear time, and previews it like a short one", () => {
    const word = (chars: number) => ({ command: `echo ${"x".repeat(chars)}` });
    const dashed = (pairs: number) => ({ command: `echo ${"a-".repeat(pairs)} AKIAIOSFODNN7EXAMPLE` });
    expect(line("Bash", word(1_000_000))).toBe(`🖥️ Running echo ${"x".repeat(15)}…${"x".repeat(19)}`);
    expect(line("Bash", dashed(500_000))).toBe(`🖥️ Running echo a-a-a-a-a-a-a-a…a-a-a-a- [redacted]`);
    // The old key: value pattern was quadratic on the dashed word: it took minutes.
    expectLinear(word, (input) => line("Bash", input), 1_000_000, "word");
    expectLinear(dashed, (input) => line("Bash", input), 500_000, "dashed word");
  });
});

// Issue 36 (c): the middle cut showed `AWS_SECRET_ACCESS_KE…XAMPLEKEY aws s3 ls`, the key's tail.
describe("a preview never shows part of a secret", () => {
  const AGENT_ENV_VALUE = "Zq7XenvK-0c3d55-Wq";
  const redact = chatRedaction([AGENT_ENV_VALUE]);
  const redacted = (title: string, input: unknown) => toolActivityLine({ title, input }, places, redact);

  it("redacts an env-style secret before the balanced or middle cut", () => {
    expect(line("Bash", { command: "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls" })).toBe("🖥️ Running AWS_SECRET_ACCESS_KE…redacted] aws s3 ls");
    expect(line("Read", { file_path: "/srv/agent/AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY/x.txt" })).toBe("📖 Reading AWS_SECRET_ACCESS_KEY=[redacted]");
  });

  it("masks what the broker knows ([agent.env] values) as the log does, in previews and in a title shown as a name", () => {
    expect(redacted("Bash", { command: `echo ${AGENT_ENV_VALUE} | login` })).toBe("🖥️ Running echo *** | login");
    const title = "Run curl https://bob:T1tlePassw0rd@h.example.com/?access_token=TITLETOKEN42";
    const shown = redacted(title, undefined);
    for (const secret of ["T1tlePassw0rd", "TITLETOKEN42"]) expect(shownFragments(shown, secret)).toEqual([]);
  });

  // Families that cut at the head (WebSearch), in the middle (Read) and both ends (Bash), and a tool shown by its name.
  const tools = fc.constantFrom(["WebSearch", "query"], ["Read", "file_path"], ["Bash", "command"], ["deploy_thing", "target"]);
  const carriers = fc.constantFrom(
    { secret: AGENT_ENV_VALUE, text: AGENT_ENV_VALUE },
    { secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", text: "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" },
    { secret: "T1tlePassw0rd", text: "https://bob:T1tlePassw0rd@h.example.com/" },
    { secret: "AKIAIOSFODNN7EXAMPLE", text: "AKIAIOSFODNN7EXAMPLE" },
    { secret: "hunter2hunter2", text: "--password hunter2hunter2" },
  );
  // Lengths on either side of the old 4,096-code-point scan, and of every cut.
  const filler = fc.string({ unit: fc.constantFrom("a", "b", "/", " ", ".", "-", "é", "😀"), maxLength: 5_000, size: "max" });
  test.prop([tools, filler, carriers, filler], { numRuns: 200 })("for any cut", ([title, field], before, carrier, after) => {
    const shown = redacted(title, { [field]: `${before} ${carrier.text} ${after}` });
    expect(shownFragments(shown, carrier.secret, `${before} ${after}`)).toEqual([]);
  });
});
