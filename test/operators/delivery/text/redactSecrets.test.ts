import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../../../operators/delivery/text/redactSecrets.js";
import { expectLinear } from "../../../helpers/linearTime.js";

// mono-agent's own vectors stay in toolActivity.test.ts; these are the names and shapes added here.
describe("redactSecrets", () => {
  it.each([
    // Issue 36 (c): an env-style name that only contains SECRET; the value went out whole before.
    ["AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls", "AWS_SECRET_ACCESS_KEY=[redacted] aws s3 ls"],
    ["export DB_PASSWORD=hunter2 && psql", "export DB_PASSWORD=[redacted] && psql"],
    ["STRIPE_KEY=abcdef123456 node pay.js", "STRIPE_KEY=[redacted] node pay.js"],
    ["curl -H 'x-api-key: k-998877' https://x", "curl -H 'x-api-key=[redacted] https://x"],
    ['{"api_key": "k-998877", "n": 1}', '{"api_key=[redacted] "n": 1}'],
    ["private key: abc123", "private key=[redacted]"],
    // A harmless name before a credential: the credential is still read and redacted.
    ["Error: password=hunter2 rejected", "Error: password=[redacted] rejected"],
    ["login failed; token:abc123", "login failed; token=[redacted]"],
    // URL credentials, a password holding an `@` included.
    ["git clone https://bob:p@ss@h.example.com/r.git", "git clone https://h.example.com/r.git"],
    // As mono-agent's vector: `name=value` then takes the rest of the token.
    ["fetch https://h.example.com/?access_token=TOK42&q=1", "fetch https://h.example.com/?access_token=[redacted]"],
    ["deploy --db-password s3cret --verbose", "deploy --db-password [redacted] --verbose"],
    ["echo github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "echo [redacted]"],
    ["echo glpat-abcdefghij0123456789", "echo [redacted]"],
    ["echo AIzaSyA1234567890abcdefghijklmnopqrstuv", "echo [redacted]"],
    ["echo sk_live_abcdefghij0123", "echo [redacted]"],
    ["echo xapp-1-A0123456789-abcdef", "echo [redacted]"],
    ["echo ASIAIOSFODNN7EXAMPLE", "echo [redacted]"],
    ["-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK\n-----END RSA PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----[redacted]-----END RSA PRIVATE KEY-----"],
  ])("%s", (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it.each([
    "Read src/token.ts",
    "max_tokens: 4096 exceeded",
    "npm test -- --reporter=dot",
    "git log --oneline -5",
    "Basic",
    "task-abcdefghijk and eyJ",
  ])("leaves %j as it is", (input) => {
    expect(redactSecrets(input)).toBe(input);
  });

  it("is idempotent: redacting twice changes nothing more", () => {
    const once = redactSecrets("curl -H 'Authorization: Bearer abc123def' https://u:p@api.x.io/v1?token=zzz --password=x AKIAIOSFODNN7EXAMPLE");
    expect(redactSecrets(once)).toBe(once);
  });

  // Each input makes some pattern start at every character of one long token; a pattern that
  // rescanned the token from each start (as `\b[\w-]*token` and `\beyJ…` did) is quadratic: one
  // whole input takes ten times as long as ten of a tenth, where a linear pass takes as long.
  it.each([
    ["one word", "", "a"],
    ["a dashed word", "", "a-"],
    ["dashes", "", "-"],
    ["eyJ- repeated", "", "eyJ-"],
    ["sk- repeated", "", "sk-a"],
    ["digits", "", "1"],
    ["colons", "", "a:"],
    ["schemes", "", "://a"],
    ["equals", "", "a="],
    ["spaces", "token", " "],
    ["flags", "", "--a "],
    ["mysql -p", "mysql", " -p"],
    ["PEM headers", "", "-----BEGIN PRIVATE KEY-----"],
  ])("redacts 500 KB of %s in linear time", (_name, head, piece) => {
    expectLinear((chars: number) => head + piece.repeat(Math.ceil(chars / piece.length)), redactSecrets, 500_000);
  });
});
