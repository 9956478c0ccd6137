// Memory: heap per tracked idle conversation (triage + inbound dedupe state) and per idle pooled
// session (the session pool's bookkeeping; the agent is another process and not counted). Run
// with `node --expose-gc`; every reading is heapUsed after full collections.
import { defaultIfEmpty, firstValueFrom, ignoreElements, lastValueFrom, map, range, toArray } from "rxjs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inboundDedupeKey, InboundDedupe, settingsFromConfig, triage, type GatewayEvent } from "../operators/index.js";
import { createLogger, createSessionPool, MemoryDedupeStore, MemorySessionStore, MemoryTriageStore, resolveConfig } from "../src/index.js";
import { stampAgentPath } from "./lib/agentBroker.js";
import { emit, note, quick, sized } from "./lib/benchEnv.js";
import { round } from "./lib/stats.js";
import { TRIAGE_CONFIG } from "./lib/turnstreamIngress.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with node --expose-gc");

const conversations = sized("MEMORY_CONVERSATIONS", 10_000, 10_000);
const sessions = sized("MEMORY_SESSIONS", 20, 5);

function heapUsed(): number {
  for (let i = 0; i < 4; i++) gc?.();
  return process.memoryUsage().heapUsed;
}

/** A Telegram-like event of conversation `c` (supergroup ids are 13 digits). */
function event(c: number, n: number, proactive: boolean): GatewayEvent {
  return {
    schema: "openab.gateway.event.v1",
    event_id: `${1_700_000_000_000 + c * 10 + n}`,
    timestamp: "2026-01-05T09:30:00.000Z",
    platform: "telegram",
    channel: { id: `-100${String(1_000_000_000 + c)}`, type: "supergroup" },
    sender: { id: `${500_000_000 + c}`, name: "ann", display_name: "Ann", is_bot: false },
    content: { type: "text", text: proactive ? "reminder" : "hello", attachments: [] },
    mentions: [],
    message_id: `${40_000 + n}`,
    proactive,
  };
}

/**
 * Triage state as a conversation leaves it: three proactive events through the `triage` operator
 * (one wake, then two cooldown suppressions — three remembered ids, a wake time, the day's count).
 * Inbound dedupe: one committed human message per conversation (`dedupe_max` raised so the cap
 * does not evict them; the default keeps at most 5,000 keys in all).
 */
async function conversationsHeap(count: number): Promise<{ triageBytes: number; dedupeBytes: number }> {
  const store = new MemoryTriageStore();
  const committed = new InboundDedupe({ ttlMs: 1_200_000, max: count });
  const dedupe = new MemoryDedupeStore(committed);
  const settings = settingsFromConfig(TRIAGE_CONFIG);
  const before = heapUsed();
  for (let n = 0; n < 3; n++) {
    await lastValueFrom(range(0, count).pipe(map((c) => event(c, n, true)), triage({ settings, store }), ignoreElements(), defaultIfEmpty(null)));
  }
  const afterTriage = heapUsed();
  const now = Date.now();
  for (let c = 0; c < count; c++) {
    const human = event(c, 9, false);
    const key = inboundDedupeKey(human) as string;
    await firstValueFrom(dedupe.claim(key, `${human.platform}:${human.event_id}`, now));
    await lastValueFrom(dedupe.commit(key, now), { defaultValue: undefined });
  }
  const afterDedupe = heapUsed();
  // Both stores are used after the last reading, so neither is collected before it.
  if (store.size !== count || committed.size !== count) throw new Error(`expected ${count} entries, got ${store.size} / ${committed.size}`);
  return { triageBytes: (afterTriage - before) / count, dedupeBytes: (afterDedupe - afterTriage) / count };
}

/**
 * Heap per live, idle session of the pool: each ran one turn on its own agent process. The slope
 * of heapUsed over the session count (least squares over a reading after every session), after
 * `warm` sessions, so one-off costs (compiled code, buffers and tables that grow in steps) are not
 * spread over the sessions.
 */
async function pooledSessionHeap(): Promise<number> {
  // The first sessions also pay for compiled code and feedback of the session paths (V8 keeps both on
  // the heap): about 40 KB each at first, falling to a steady ~10 KB only after some 20 sessions.
  const warm = quick ? 5 : 20;
  const dir = mkdtempSync(join(tmpdir(), "turnstream-bench-"));
  const config = resolveConfig({
    agent: { command: process.execPath, args: [stampAgentPath], working_dir: dir },
    pool: { max_sessions: sessions + warm, state_dir: dir },
  });
  const pool = createSessionPool(config, { env: process.env, logger: createLogger({ level: "silent" }), store: new MemorySessionStore() });
  const turn = (key: string) => lastValueFrom(pool.withSession(key, (session) => session.prompt([{ type: "text", text: "envelope 1" }]).pipe(toArray())));
  try {
    for (let s = 0; s < warm; s++) await turn(`warm-${s}`);
    const readings: [number, number][] = [[0, heapUsed()]];
    for (let s = 1; s <= sessions; s++) {
      await turn(`telegram:-100${1_000_000_000 + s}`);
      readings.push([s, heapUsed()]);
    }
    if (pool.size !== sessions + warm) throw new Error(`expected ${sessions + warm} live sessions, got ${pool.size}`);
    if (process.env.BENCH_MEMORY_TRACE === "1") note(JSON.stringify(readings.map(([x, y]) => [x, Math.round((y - (readings[0]?.[1] ?? 0)) / 1024)])));
    return slope(readings);
  } finally {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Least-squares slope of y over x. */
function slope(points: readonly (readonly [number, number])[]): number {
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
  const covariance = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0);
  const variance = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  return covariance / variance;
}

await conversationsHeap(2_000); // warm-up: compiled code and lazily built module state are not per-conversation
const { triageBytes, dedupeBytes } = await conversationsHeap(conversations);
note(`conversations: triage ${Math.round(triageBytes)} B, dedupe ${Math.round(dedupeBytes)} B`);
const sessionBytes = await pooledSessionHeap();
note(`pooled session: ${Math.round(sessionBytes)} B`);
emit({
  benchmark: "memory",
  unit: "bytes",
  conversations,
  perConversation: { triage: round(triageBytes), inboundDedupe: round(dedupeBytes), total: round(triageBytes + dedupeBytes) },
  per10kConversations: round(((triageBytes + dedupeBytes) * 10_000) / 1024 / 1024, 2),
  pooledSessions: sessions,
  perIdlePooledSession: round(sessionBytes),
});
