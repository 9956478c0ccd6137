import { afterEach, describe, expect, it } from "vitest";
import { startStack, until, userEvent, type Stack, type StackOptions } from "../helpers/stack.js";
import { shownFragments } from "../helpers/secretFragments.js";

// Issue 36 (hole 4) end to end: a real dev gateway, the broker and the scripted agent's `secrets`
// scenario — tool titles and arguments full of credentials, an answer, then a JSON-RPC error
// quoting an [agent.env] value and a URL's credentials — with tool summaries and the activity
// message on. Nothing of any secret may reach the gateway, in any frame, whole or in part.

/** The agent's env var whose value the scenario puts in a title, an argument and its error. */
const ENV_NAME = "DEPLOY_KEY";
const ENV_VALUE = "Qv8ZenvK-71c3d5-Wx";
const SECRETS = [ENV_VALUE, "T1tlePassw0rd", "TITLETOKEN42", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "UrlPassw0rd", "Kq3V99zzXw"];

/** Every spelling a secret could take in a frame: as is, JSON-escaped, URL-encoded. */
const spellings = (secret: string) => [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)];

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

/** Every frame the gateway received in the run, as the text it carried. */
async function run(options: StackOptions, prompt: string): Promise<{ frames: string[]; texts: string[] }> {
  stack = await startStack({ ...options, agentEnv: { [ENV_NAME]: ENV_VALUE }, config: { ...options.config, activity: { enabled: true } } });
  const frames: string[] = [];
  const texts: string[] = [];
  stack.gateway.received.subscribe((received) => {
    if (received.kind === "other") frames.push(received.text);
    else {
      frames.push(JSON.stringify(received.frame));
      // Messages and their edits; reactions carry an emoji as their text.
      if (received.frame.command === undefined || received.frame.command === "edit_message") texts.push(received.frame.content.text);
    }
  });
  const s = stack;
  s.gateway.broadcast(userEvent(prompt));
  expect(await until(() => s.records.some((r) => r.msg === "turn complete" || r.msg === "turn failed"), 30_000)).toBe(true);
  // The activity message goes once the answer is out; then nothing more is sent for the turn.
  expect(await until(() => s.commands.some((frame) => frame.command === "delete_message"), 10_000)).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 300));
  return { frames, texts };
}

function expectNoSecret(frames: readonly string[]): void {
  for (const frame of frames) {
    for (const secret of SECRETS) {
      for (const spelling of spellings(secret)) expect(frame, `${secret} in ${frame}`).not.toContain(spelling);
      // Also no piece a cut could leave (the AWS key's tail, a password's head) — in what the frame
      // carries, not in its random request_id (a UUID once held "-71c", a fragment of a test secret).
      expect(shownFragments(frame.replace(/"request_id":"[^"]*"/, ""), secret), frame).toEqual([]);
    }
  }
}

const ERROR_SHOWN = "JSON-RPC error -32000: upstream refused key *** at https://api.example.com/v1?api_key=[redacted] — retry with ***";
const SUMMARY = "✅ `Run curl https://h.example.com/?access_token=[redacted]`\n✅ `Bash`\n❌ `deploy with ***`\n";

describe.each([
  ["text", { config: { delivery: { mode: "text" } } }, "text", `⚠️ ${ERROR_SHOWN}\n\n${SUMMARY}\nchecked the deploy`],
  ["text, streaming", { config: { delivery: { mode: "text" }, gateway: { streaming: true } } }, "text", `⚠️ ${ERROR_SHOWN}\n\n${SUMMARY}\nchecked the deploy`],
  ["sequential", { config: { delivery: { mode: "sequential" } } }, "bubble", `⚠️ sequential turn failed after 1 bubble(s): ${ERROR_SHOWN}`],
] as const)("secrets never reach the chat (%s mode, tool summaries and activity on)", (_mode, options, form, lastText) => {
  it("masks titles, arguments and the agent's error in every frame the gateway received", async () => {
    // Tools 1.6 s apart: the activity message, edited at most every 1.5 s, shows each of them.
    const { frames, texts } = await run(options as StackOptions, `secrets ${ENV_NAME} ${form} 1600`);
    // What was shown, masked: the activity lines, then the reply with its summary and the error.
    expect(texts).toContain("🖥️ Running curl https://h.examp…ss_token=[redacted] …");
    expect(texts.some((text) => text.includes("🖥️ Running AWS_SECRET_ACCESS_KE…redacted] aws s3 ls"))).toBe(true);
    expect(texts.some((text) => text.includes("🔧 Deploy with *** https://ci.example.com/hook"))).toBe(true);
    expect(texts.at(-1)).toBe(lastText);
    expectNoSecret(frames);
  });
});
