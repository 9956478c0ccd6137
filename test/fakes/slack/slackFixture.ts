import { afterEach, beforeEach } from "vitest";
import { LogLevel, WebAPIPlatformError, WebClient } from "@slack/web-api";
import { FakeSlack, type FakeSlackOptions } from "./index.js";

/**
 * A fake Slack started before each test and closed after it, with the real WebClient pointed at it
 * (`slackApiUrl`). The client retries nothing (`retries: 0`), so a refusal reaches the test at once.
 */
export function useFakeSlack(options: FakeSlackOptions = {}): { readonly fake: FakeSlack; readonly web: WebClient } {
  const current: { fake?: FakeSlack; web?: WebClient } = {};
  beforeEach(async () => {
    current.fake = await FakeSlack.start(options);
    current.web = new WebClient(current.fake.botToken, { slackApiUrl: current.fake.apiUrl, logLevel: LogLevel.ERROR, retryConfig: { retries: 0 } });
  });
  afterEach(async () => {
    await current.fake?.close();
  });
  return {
    get fake() {
      return current.fake!;
    },
    get web() {
      return current.web!;
    },
  };
}

/** Two users, another app's bot, a public channel with all of them and the bot, a private one, a channel without the bot, and a DM. */
export function someConversations(fake: FakeSlack) {
  const alice = fake.addUser({ name: "alice", realName: "Alice Liddell", displayName: "Ali" });
  const bob = fake.addUser({ name: "bob", realName: "Bob Builder" });
  const helper = fake.addBot({ name: "helperbot" });
  const general = fake.addChannel({ name: "general", members: [alice, bob, helper] });
  const secret = fake.addChannel({ name: "secret", private: true, members: [alice] });
  const lobby = fake.addChannel({ name: "lobby", members: [alice, bob], botIsMember: false });
  const dm = fake.dm(alice);
  return { alice, bob, helper, general, secret, lobby, dm };
}

/** The Slack error code a call is refused with (fails the test if the call succeeds or fails otherwise). */
export async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (error instanceof WebAPIPlatformError) return error.data.error;
    throw error;
  }
  throw new Error("the fake Slack accepted a call it should refuse");
}

/** Waits until `check` holds (polling every 10 ms); fails the test after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
