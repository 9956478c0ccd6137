import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { lastValueFrom, tap } from "rxjs";
import { describe, expect, it } from "vitest";
import type { BusMessage } from "../../src/bus/bus.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Lets pending finalizers run: collections on separate turns of the event loop. */
async function collect(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("MemoryBus request retention", () => {
  // The edge remembers answered send requests by send id (10,000 of them); a message kept that way
  // must not keep the requesting side's subscriber chain alive (the soak benchmark found ~8 KB a turn).
  it("a responder that keeps an answered message does not keep the requester's subscriber alive", async () => {
    const bus = new MemoryBus();
    const kept: BusMessage<number>[] = [];
    bus.subscribe<number>("svc").subscribe((message) => {
      kept.push(message);
      message.respond(message.data + 1);
    });
    let requester: WeakRef<object> | undefined;
    const ask = () => {
      // State of the requesting turn, reachable from an operator on its side of the request.
      const turn = { payload: new Array<string>(1_000).fill("turn state"), replies: 0 };
      requester = new WeakRef(turn);
      return lastValueFrom(bus.request<number, number>("svc", 1, { timeoutMs: 5_000 }).pipe(tap(() => (turn.replies += 1))));
    };
    expect(await ask()).toBe(2);
    await collect();
    expect(kept).toHaveLength(1);
    expect(requester?.deref()).toBeUndefined();
    bus.close();
  });
});
