import { describe, expect, it } from "vitest";
import { partitionOf } from "../../operators/dispatch/partitionOf.js";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { ReplyFrame } from "../../src/devgateway/devGateway.js";
import { RECOVERED_REPLY_MARKER } from "../../src/turn/turnLedger.js";
import { heldPartitions as held, useNatsCluster, type Cluster, type Member } from "../helpers/cluster.js";
import { natsServerAvailable } from "../helpers/natsServer.js";
import { until, userEvent } from "../helpers/stack.js";

// kill -9 of a worker while its turns stream (`[gateway] streaming = true`) over real processes:
// a real nats-server, `turnstream --role edge|worker`, the dev gateway and the scripted agent's
// `drip` scenario. The re-run deletes the placeholder its predecessor left (found through the
// delivery ledger) and keeps the recovered-reply marker through its final edit.

const available = natsServerAvailable();

/** Each event its own turn, no status reactions (commands would be only reactions otherwise). */
const config = { queue: { mode: "followup", debounce_ms: 0 }, pool: { max_sessions: 40 }, gateway: { streaming: true }, reactions: { enabled: false } };

/** `drip 6 700`: `word1 ` … `word6 ` 0.7 s apart, a reply written over about 4 s. */
const DRIP = "drip 6 700";
const WHOLE = "word1 word2 word3 word4 word5 word6";
const PARTITIONS = 16;

/** One frame the gateway received and the id it gave it (edits and deletes name it in `reply_to`). */
interface Seen {
  readonly frame: ReplyFrame;
  readonly messageId: string;
}

describe.skipIf(!available)("streaming turns re-run after kill -9 of their worker (NATS)", () => {
  const nats = useNatsCluster();

  it(
    "no placeholder is left behind: every posted streaming message ends deleted or edited to the whole reply, and a marked re-run's final text keeps the marker",
    async () => {
      // The lease settings of the kill -9 scale-out test: 5 s, so renewals do not lapse when both cores are busy.
      const ttlMs = 5_000;
      // Agents that support session/load: the re-run resumes the session quietly (no reset notice in its text).
      const cluster = await nats.start({ bus: { prefix: "streamkill", lease_ttl_secs: ttlMs / 1000, ack_wait_secs: 3 }, config, agentEnv: { LOAD_SESSION: "1" } });
      const seen: Seen[] = [];
      cluster.gateway.received.subscribe((received) => {
        if (received.kind === "reply") seen.push({ frame: received.frame, messageId: received.messageId });
      });
      await cluster.add("edge");
      const workers = [await cluster.add("worker"), await cluster.add("worker")];
      expect(await until(() => owned(workers).size === PARTITIONS && workers.every((worker) => held(worker).size > 0), 30_000)).toBe(true);

      // Eight conversations, each on a partition the victim holds: its every turn is mid-stream when it dies.
      const victim = workers.reduce((most, worker) => (held(worker).size > held(most).size ? worker : most));
      const survivor = workers.find((worker) => worker !== victim) as Member;
      const events = victimEvents(held(victim), 8);
      // And two the survivor runs through undisturbed.
      const undisturbed = survivorEvents(held(victim), 2);
      for (const event of [...events, ...undisturbed]) cluster.gateway.broadcast(event);

      // Killed once each of the victim's streaming messages has been edited: the placeholder's id was
      // recorded before its first edit could leave (the ledger write precedes the open's receipt).
      const streaming = (eventId: string) => posts(seen).find((post) => post.frame.reply_to === eventId);
      const editedOnce = (eventId: string) => {
        const post = streaming(eventId);
        return post !== undefined && seen.some((s) => s.frame.command === "edit_message" && s.frame.reply_to === post.messageId);
      };
      expect(await until(() => events.every((event) => editedOnce(String(event.event_id))), 30_000)).toBe(true);
      expect(held(victim).size).toBeGreaterThan(0);
      victim.kill9();

      // Every event ends with its whole reply in a message (the re-run's, for the victim's).
      const answered = (eventId: string) => finalTexts(seen, eventId).some((text) => text.endsWith(WHOLE));
      const all = [...events, ...undisturbed].map((event) => String(event.event_id));
      if (!(await until(() => all.every(answered), 90_000))) throw new Error(`unanswered after the kill:\n${story(cluster, seen, all.filter((id) => !answered(id)))}`);
      // Late frames (a re-run's last edit, a duplicate re-run's) have landed.
      await new Promise((resolve) => setTimeout(resolve, 2_000));

      // No placeholder left: each posted message's last change is a delete or the whole reply.
      const left = posts(seen).filter((post) => {
        const last = changesOf(seen, post.messageId).at(-1);
        return last === undefined || (last.frame.command !== "delete_message" && !last.frame.content.text.endsWith(WHOLE));
      });
      expect(left.map((post) => ({ event: post.frame.reply_to, text: post.frame.content.text, changes: changesOf(seen, post.messageId).map((s) => s.frame.content.text) }))).toEqual([]);
      // Each re-run is marked, deleted the placeholder the victim left (the "…" it posted first), and
      // its message's final text keeps the marker. Under load a victim's lease can move before the
      // kill (its turn then finishes there and is not repeated, unmarked): every event is checked by
      // what became of it, and re-runs there must be. A re-run may be handed over once more after it
      // completed (then also "not repeated"): it was still a re-run, and its message stays marked.
      const reruns = cluster.logged("interrupted turn re-run");
      const deletedFor = new Set(cluster.logged("interrupted attempt's streaming message deleted").map((line) => line.event_id));
      let recovered = 0;
      for (const event of events) {
        const eventId = String(event.event_id);
        const texts = finalTexts(seen, eventId);
        const rerun = reruns.find((line) => line.event_id === eventId);
        if (rerun === undefined) {
          expect(texts, eventId).toEqual([WHOLE]);
          continue;
        }
        recovered += 1;
        expect(rerun.marked, eventId).toBe(true);
        expect(texts, eventId).toEqual([`${RECOVERED_REPLY_MARKER}\n\n${WHOLE}`]);
        const [first] = posts(seen).filter((post) => post.frame.reply_to === eventId);
        expect(first?.frame.content.text, eventId).toBe("…");
        expect(changesOf(seen, first?.messageId ?? "").at(-1)?.frame.command, eventId).toBe("delete_message");
        expect(deletedFor.has(eventId), eventId).toBe(true);
      }
      expect(recovered).toBeGreaterThan(0);
      // Untouched conversations: one message, its final edit the reply, unmarked.
      for (const event of undisturbed) expect(finalTexts(seen, String(event.event_id))).toEqual([WHOLE]);
      expect(survivor.logs.filter((line) => line.msg === "turn complete").length).toBeGreaterThanOrEqual(recovered + undisturbed.length);
    },
    150_000,
  );
});

/** Partitions any of the workers holds now. */
function owned(workers: readonly Member[]): Set<number> {
  return new Set(workers.flatMap((worker) => [...held(worker)]));
}

/** `count` one-event conversations whose session keys fall in `partitions`. */
function victimEvents(partitions: ReadonlySet<number>, count: number): Record<string, unknown>[] {
  return conversations((partition) => partitions.has(partition), count, "v");
}

/** `count` one-event conversations whose session keys fall outside `partitions`. */
function survivorEvents(partitions: ReadonlySet<number>, count: number): Record<string, unknown>[] {
  return conversations((partition) => !partitions.has(partition), count, "s");
}

function conversations(wanted: (partition: number) => boolean, count: number, tag: string): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (let n = 0; events.length < count; n++) {
    const channel = { id: `stream-${tag}${n}`, type: "dm" };
    if (!wanted(partitionOf(sessionKey({ platform: "telegram", channel } as GatewayEvent), PARTITIONS))) continue;
    events.push(userEvent(DRIP, { event_id: `sk-${tag}${n}`, message_id: `skm-${tag}${n}`, channel }));
  }
  return events;
}

/** Messages posted (not edits, deletes or reactions). */
function posts(seen: readonly Seen[]): Seen[] {
  return seen.filter((s) => s.frame.command === undefined);
}

/** Edits and deletes of one posted message, in arrival order. */
function changesOf(seen: readonly Seen[], messageId: string): Seen[] {
  return seen.filter((s) => (s.frame.command === "edit_message" || s.frame.command === "delete_message") && s.frame.reply_to === messageId);
}

/** What each message posted for an event shows in the end (deleted ones left out). */
function finalTexts(seen: readonly Seen[], eventId: string): string[] {
  return posts(seen)
    .filter((post) => post.frame.reply_to === eventId)
    .flatMap((post) => {
      const last = changesOf(seen, post.messageId).at(-1);
      if (last?.frame.command === "delete_message") return [];
      return [last?.frame.content.text ?? post.frame.content.text];
    });
}

/** What happened to the events, for a failure's message. */
function story(cluster: Cluster, seen: readonly Seen[], eventIds: readonly string[]): string {
  const frames = eventIds.map((id) => `${id}: ${JSON.stringify(finalTexts(seen, id))}`);
  const lines = cluster.members.flatMap((m) => m.logs.filter((l) => /lease|re-run|repeated|deferred|failed|deleted/.test(String(l.msg))).map((l) => `${m.name} ${String(l.time)} ${String(l.msg)} ${JSON.stringify({ p: l.partition, e: l.event_id, r: l.reason })}`));
  return [...frames, ...lines].join("\n");
}
