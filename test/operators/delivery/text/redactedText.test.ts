import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { redactedText } from "../../../../operators/delivery/text/redactedText.js";
import { redactSecrets } from "../../../../operators/delivery/text/redactSecrets.js";
import { untrustedText } from "../../../../operators/ingress/untrustedText.js";
import { chatRedaction } from "../../../../src/log/secretScrubber.js";
import { shownFragments } from "../../../helpers/secretFragments.js";
import { expectLinear } from "../../../helpers/linearTime.js";

const AGENT_ENV_VALUE = "Zq7XenvK-0c3d55-Wq";
const redact = chatRedaction([AGENT_ENV_VALUE]);

describe("redactedText", () => {
  it("cleans before it redacts: an escape sequence inside a token does not hide it", () => {
    expect(redactedText("echo ghp_abcdefghij\u001b[0mklmnopqrstuvwxyz", redactSecrets)).toBe("echo [redacted]");
    expect(redactedText(`key ${AGENT_ENV_VALUE.slice(0, 6)}\u0000${AGENT_ENV_VALUE.slice(6)}`, redact)).toBe("key ***");
  });

  it("redacts before it cuts: a secret across the 500-char bound leaves nothing of itself", () => {
    for (const [secret, carrier] of [
      [AGENT_ENV_VALUE, AGENT_ENV_VALUE],
      ["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
    ] as const) {
      const raw = `${"x ".repeat(240)}${carrier} and more text after it, ${"y ".repeat(40)}`;
      const shown = redactedText(raw, redact);
      expect(shown.length).toBeLessThanOrEqual(500);
      expect(shownFragments(shown, secret)).toEqual([]);
    }
    // Cutting first (the order before) left the head of a known secret to a redaction that looks
    // for whole secrets (chatRedaction now also masks a head left at a cut, the log's second line).
    const wholeOnly = (text: string) => text.replaceAll(AGENT_ENV_VALUE, "***");
    const cutFirst = wholeOnly(untrustedText(`${"x ".repeat(240)}${AGENT_ENV_VALUE} and more text after it, ${"y ".repeat(40)}`));
    expect(shownFragments(cutFirst, AGENT_ENV_VALUE)).not.toEqual([]);
    expect(shownFragments(redact(untrustedText(`${"x ".repeat(240)}${AGENT_ENV_VALUE} and more text after it`)), AGENT_ENV_VALUE)).toEqual([]);
  });

  it("keeps line breaks when multiline and ends a long text in the usual marker", () => {
    expect(redactedText("line one\nline two", redact, { multiline: true })).toBe("line one\nline two");
    expect(redactedText("a".repeat(1_000), redact)).toMatch(/…\(\+[\d,]+ chars\)$/);
  });

  it("handles a title of half a megabyte in linear time, hostile characters included", () => {
    for (const unit of ["Run curl https://bob:pw@h.example.com/?access_token=T0K3N ", "a-", "\u001b[31mx\u001b[0m\u0000\r\n\u202e"]) {
      const title = (chars: number) => unit.repeat(Math.ceil(chars / unit.length));
      const show = (raw: string) => redactedText(raw, redact, { multiline: true });
      expect(show(title(500_000)).length).toBeLessThanOrEqual(500);
      // A quadratic step would take minutes on the whole title.
      expectLinear(title, show, 500_000, JSON.stringify(unit));
    }
  });
});

// Secrets the broker knows (an [agent.env] value) and shapes it recognises, each carried as agents write them.
const carriers = fc.constantFrom(
  { secret: AGENT_ENV_VALUE, text: `API_CALL ${AGENT_ENV_VALUE} ok` },
  { secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", text: "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" },
  { secret: "T1tlePassw0rd", text: "curl https://bob:T1tlePassw0rd@h.example.com/" },
  { secret: "TITLETOKEN42", text: "https://h.example.com/?access_token=TITLETOKEN42" },
  { secret: "AKIAIOSFODNN7EXAMPLE", text: "aws AKIAIOSFODNN7EXAMPLE" },
  { secret: "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123", text: "GH ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123" },
);
// Filler that shares no 4-character run with the secrets but ordinary words; lengths put the secret on either side of every cut.
const filler = (maxLength: number) => fc.string({ unit: fc.constantFrom("a", "b", "c", " ", "\n", ".", "-", "é", "😀"), maxLength, size: "max" });

describe("no cut shows part of a redacted secret", () => {
  test.prop([filler(1_200), carriers, filler(600), fc.boolean()], { numRuns: 300 })("redactedText, multiline or not", (before, carrier, after, multiline) => {
    // A space on either side: a shape glued to more letters (`AKIA…EXAMPLEa`) is not that shape.
    const shown = redactedText(`${before} ${carrier.text} ${after}`, redact, { multiline });
    expect(shownFragments(shown, carrier.secret, `${before} ${after}`)).toEqual([]);
  });
});
