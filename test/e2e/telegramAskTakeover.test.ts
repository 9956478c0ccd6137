import { afterEach, describe, expect, it } from "vitest";
import type { InlineKeyboardButton } from "grammy/types";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { firstValueFrom } from "rxjs";
import type { ShownMessage } from "../fakes/telegram/index.js";
import { useFakeBotApi } from "../fakes/telegram/fakeBotApiFixture.js";
import type { LedgerRecord } from "../../src/state/deliveryLedger.js";
import { KvDeliveryLedger } from "../../src/state/kv/kvDeliveryLedger.js";
import { EXPIRED_QUESTION_TEXT } from "../../src/turn/stalePlaceholders.js";
import { ledgerKey, RECOVERED_REPLY_MARKER } from "../../src/turn/turnLedger.js";
import { subjects } from "../../src/wire/index.js";
import { heldPartitions, useNatsCluster, type Member } from "../helpers/cluster.js";
import { natsServerAvailable } from "../helpers/natsServer.js";
import { until } from "../helpers/stack.js";
import { holds, logged, telegramDeployment, TTL_MS } from "../helpers/telegramScaleOut.js";

// Issue 41's "a worker that dies with a pending question leaves the buttons answered 'expired' by
// whoever re-runs the turn", over real processes: a nats-server, a Telegram edge polling the fake
// Bot API and two workers (`turnstream run --role …`), `permission_mode = "ask"` and the scripted
// agent's `permission` scenario. The worker that asked is killed with -9 while the question waits;
// the other takes its partitions over, re-runs the turn, marks the old question expired (buttons
// gone) through the delivery ledger's record of it, and asks again; the requester's tap on the new
// question reaches the agent.

const available = natsServerAvailable();
const fake = useFakeBotApi();
const PARTITIONS = 16;
const PREFIX = "askexpire";

const ASK = "permission allow_once,reject_once";
const answered = (optionId: string) => JSON.stringify({ outcome: { outcome: "selected", optionId } });

/** The bot's messages asking to go ahead (the question as posted; an expired one no longer says so). */
function questions(chatId: number): ShownMessage[] {
  return fake.api.shown(chatId).filter((message) => message.from_bot && message.text?.includes("The agent asks to go ahead") === true);
}

/** The callback_data of the question's button labelled `label`. */
function dataOf(question: ShownMessage, label: string): string {
  const button = question.keyboard.flat().find((one) => one.text === label) as (InlineKeyboardButton & { callback_data?: string }) | undefined;
  if (button?.callback_data === undefined) throw new Error(`no button ${label} on the question`);
  return button.callback_data;
}

describe.skipIf(!available)('permission_mode = "ask" on NATS: the worker that asked dies', () => {
  const nats = useNatsCluster();
  let nc: NatsConnection | undefined;
  afterEach(async () => {
    await nc?.close();
    nc = undefined;
  });

  /** The delivery ledger's record of a Telegram event, as every worker reads it (NATS KV). */
  async function ledgerRecord(eventId: string): Promise<LedgerRecord | undefined> {
    nc ??= await connect({ servers: nats.server.url });
    const ledger = new KvDeliveryLedger(await new Kvm(nc).open(subjects(PREFIX).buckets.ledger));
    return firstValueFrom(ledger.read(ledgerKey({ platform: "telegram", event_id: eventId })));
  }

  /** The event's ledger record once it keeps a question's id (or what it holds after `timeoutMs`). */
  async function questionKept(eventId: string, timeoutMs: number): Promise<LedgerRecord | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = await ledgerRecord(eventId);
      if ((record?.questions?.length ?? 0) > 0 || Date.now() > deadline) return record;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it(
    "kill -9 of the asking worker: the other re-runs the turn, the old question says it expired and loses its buttons, the new one is answered by the requester's tap",
    async () => {
      const deployment = telegramDeployment(PREFIX, fake.api.root);
      // An agent that supports session/load: the re-run resumes the session quietly (no reset notice before the reply).
      const cluster = await nats.start({ ...deployment, config: { ...deployment.config, agent: { permission_mode: "ask" } }, agentEnv: { LOAD_SESSION: "1" } });
      const [edge, ...workers] = await Promise.all([cluster.add("edge"), cluster.add("worker", "worker-1"), cluster.add("worker", "worker-2")]);
      // Balanced (8 partitions each) before the message, so none changes hands but the victim's; the edge polls.
      expect(await until(() => holds(edge) && workers.every((worker) => heldPartitions(worker).size === PARTITIONS / 2), 30_000)).toBe(true);
      expect(await until(() => fake.api.callsOf("getUpdates").length > 0, 20_000)).toBe(true);

      const alice = fake.api.addUser({ id: 1001, first_name: "Alice", username: "alice_tg" });
      const dm = fake.api.addPrivateChat(alice);
      fake.api.from(alice).text(dm.id, ASK);
      expect(await until(() => (questions(dm.id)[0]?.keyboard.length ?? 0) > 0, 30_000)).toBe(true);
      const first = questions(dm.id)[0]!;
      expect(first.keyboard[0]!.map((button) => button.text)).toEqual(["allow_once", "reject_once"]);
      // The worker that asked is the one running the turn (its log line may be read a moment after the post).
      const asked = (worker: Member) => logged(worker, "question asked").length > 0;
      expect(await until(() => workers.some(asked), 10_000)).toBe(true);
      expect(workers.filter(asked)).toHaveLength(1);
      const victim = workers.find(asked)!;
      const survivor = workers.find((worker) => worker !== victim)!;
      // Killed once the ledger keeps the question's id, as it does for the whole wait on an answer:
      // a worker dying between the post and that write (milliseconds) leaves a question no re-run
      // knows of — Telegram's answer never reached the ledger, as with a streaming placeholder.
      const eventId = String(logged(victim, "question asked")[0]!.event_id);
      const kept = await questionKept(eventId, 10_000);
      expect(kept).toMatchObject({ state: "started", attempts: 1, delivered: 1 });
      expect(kept?.questions).toHaveLength(1);

      const killedAt = Date.now();
      victim.kill9();
      await victim.exited;

      // The survivor takes the partition over (lease TTL), the event comes back (ack wait), the turn
      // re-runs: the old question first says it expired, without buttons; then the question is asked again.
      const old = () => fake.api.shown(dm.id).find((message) => message.message_id === first.message_id);
      const again = () => questions(dm.id).find((message) => message.message_id !== first.message_id && message.keyboard.length > 0);
      if (!(await until(() => again() !== undefined && old()?.text === EXPIRED_QUESTION_TEXT, 6 * TTL_MS + 30_000))) {
        throw new Error(`not asked again, or the old question not expired:\n${story(dm.id, survivor, cluster.agentEvents())}`);
      }
      console.log(`ask takeover after kill -9: question asked again after ${Date.now() - killedAt} ms (lease TTL ${TTL_MS} ms)`);
      expect(old()!.keyboard).toEqual([]);
      expect(() => fake.api.from(alice).press(dm.id, first.message_id, dataOf(first, "allow_once"))).toThrow(/no button/);
      const second = again()!;
      expect(second.keyboard[0]!.map((button) => button.text)).toEqual(["allow_once", "reject_once"]);
      // The re-run is marked (its attempt had posted the question): the marker heads its first message, the question.
      expect(second.text!.startsWith(RECOVERED_REPLY_MARKER)).toBe(true);
      expect(second.text).toContain("Tap an option. Only Alice can answer.");
      expect(logged(survivor, "interrupted turn re-run")).toMatchObject([{ reason: "recovered", marked: true }]);
      expect(logged(survivor, "interrupted attempt's question marked expired")).toMatchObject([{ reason: "stale_question", expired: 1, total: 1 }]);
      expect(logged(survivor, "question asked")).toHaveLength(1);
      // The expiry went out before the new question: editMessageText of the old one, then the new sendMessage.
      const calls = fake.api.calls;
      const expiry = calls.findIndex((call) => call.method === "editMessageText" && call.params.message_id === first.message_id && call.ok === true);
      const repost = calls.findIndex((call) => call.method === "sendMessage" && call.ok === true && (call.result as { message_id?: number } | undefined)?.message_id === second.message_id);
      expect(expiry).toBeGreaterThanOrEqual(0);
      expect(expiry).toBeLessThan(repost);

      // Alice taps the new question: her tap is answered, the agent gets her choice, the buttons go.
      const tap = fake.api.from(alice).press(dm.id, second.message_id, dataOf(second, "allow_once")).callback_query!.id;
      // Its reply is the agent's JSON alone: the marker went on the question, the session was resumed.
      if (!(await until(() => fake.api.botTexts(dm.id).includes(answered("opt-allow_once")), 30_000))) {
        throw new Error(`the tap's answer did not reach the agent:\n${story(dm.id, survivor, cluster.agentEvents())}`);
      }
      expect(fake.api.callbackAnswers.get(tap)).toEqual({ text: undefined, show_alert: false });
      expect(await until(() => questions(dm.id).every((message) => message.keyboard.length === 0), 20_000)).toBe(true);
      expect(fake.api.shown(dm.id).find((message) => message.message_id === second.message_id)!.text).toContain("→ allow_once (Alice)");
      // The old question stays expired; only the re-run's agent got an answer; the tap started no turn.
      expect(old()!.text).toBe(EXPIRED_QUESTION_TEXT);
      const events = cluster.agentEvents();
      expect(events.filter((line) => line.startsWith("permission-response "))).toEqual([`permission-response ${answered("opt-allow_once")}`]);
      expect(events.filter((line) => line.startsWith("prompt "))).toHaveLength(2);
      expect(logged(survivor, "permission answered in the chat")).toMatchObject([{ how: "answered" }]);
    },
    120_000,
  );
});

/** What the chat shows, what the surviving worker logged and what the agents saw, for a failure's message. */
function story(chatId: number, survivor: Member, agentEvents: readonly string[]): string {
  const chat = fake.api.shown(chatId).map((message) => `${message.message_id} ${message.from_bot ? "bot" : "user"} [${message.keyboard.flat().map((button) => button.text).join("|")}] ${JSON.stringify(message.text)}`);
  const logs = survivor.logs.filter((line) => line.msg !== "partition lease acquired").map((line) => JSON.stringify(line));
  return [...chat, "-- survivor's log --", ...logs, "-- agents --", ...agentEvents].join("\n");
}
