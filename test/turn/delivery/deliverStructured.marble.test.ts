import { describe, expect, it } from "vitest";
import { map, of, throwError, type Observable } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import { emptyTranscript } from "../../../operators/delivery/turnTranscript.js";
import { deliverStructured } from "../../../src/turn/delivery/deliverStructured.js";
import type { TurnContext } from "../../../src/turn/turn.js";
import { resolveConfig } from "../../../src/config/index.js";
import { DeliveryIncompleteError } from "../../../src/pipeline/errors.js";
import { gatewayEvent } from "../../helpers/events.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { testScheduler } from "../../helpers/marbles.js";

const envelope = JSON.stringify({
  schema: "openab.turn.v1",
  messages: [
    { id: "bubble_1", text: "on it" },
    { id: "bubble_2", text: "your flight moved to 8pm" },
    { id: "bubble_3", text: "gate B12" },
  ],
  next: { type: "stop" },
});
const transcript = { ...emptyTranscript(), buffer: envelope, stopReason: "end_turn" };
const config = resolveConfig({ delivery: { mode: "structured", bubble_delay_ms: 400 } });

describe("deliverStructured in virtual time", () => {
  it("sends three bubbles at 0, 400 and 800 ms after the envelope is complete (instant acks)", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const sent: [number, string][] = [];
      const send = (message: OutboundMessage): Observable<SendReceipt> => {
        sent.push([scheduler.now(), message.content.text]);
        return of({ messageId: "m" });
      };
      const context = turnContext(send, scheduler);
      expectObservable(deliverStructured(transcript, gatewayEvent(), context, config)).toBe("800ms |");
      scheduler.flush();
      expect(sent).toEqual([
        [0, "on it"],
        [400, "your flight moved to 8pm"],
        [800, "gate B12"],
      ]);
    });
  });

  it("paces from each departure when acks are fast (50 ms acks → 0, 400, 800)", () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const sent: number[] = [];
      const send = (): Observable<SendReceipt> => {
        sent.push(scheduler.now());
        return cold("50ms (a|)").pipe(map(() => ({ messageId: "m" })));
      };
      expectObservable(deliverStructured(transcript, gatewayEvent(), turnContext(send, scheduler), config)).toBe("850ms |");
      scheduler.flush();
      expect(sent).toEqual([0, 400, 800]);
    });
  });

  it("waits for the ack when it is slower than the delay (600 ms acks → 0, 600, 1200)", () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const sent: number[] = [];
      const send = (): Observable<SendReceipt> => {
        sent.push(scheduler.now());
        return cold("600ms (a|)").pipe(map(() => ({ messageId: "m" })));
      };
      expectObservable(deliverStructured(transcript, gatewayEvent(), turnContext(send, scheduler), config)).toBe("1800ms |");
      scheduler.flush();
      expect(sent).toEqual([0, 600, 1200]);
    });
  });

  it("paces a bubble split at the platform limit from its last chunk's departure", () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const sent: [number, string][] = [];
      const send = (message: OutboundMessage): Observable<SendReceipt> => {
        sent.push([scheduler.now(), message.content.text]);
        return cold("50ms (a|)").pipe(map(() => ({ messageId: "m" })));
      };
      // A 10-character limit splits bubble 2 into four chunks (400, 450, 500, 550; the last acked at
      // 600); bubble 3 leaves 400 ms after the last chunk left, not after bubble 2's first.
      const context = { ...turnContext(send, scheduler), messageLimit: () => 10 };
      expectObservable(deliverStructured(transcript, gatewayEvent(), context, config)).toBe("1000ms |");
      scheduler.flush();
      expect(sent.map(([at]) => at)).toEqual([0, 400, 450, 500, 550, 950]);
      expect(sent.at(-1)).toEqual([950, "gate B12"]);
    });
  });

  it("stops at a failed second send: the third is never sent, the error counts without quoting", () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const sent: string[] = [];
      const send = (message: OutboundMessage): Observable<SendReceipt> => {
        sent.push(message.content.text);
        return sent.length === 2 ? throwError(() => new Error("gateway rejected write")) : of({ messageId: "m" });
      };
      const error = new DeliveryIncompleteError("structured delivery incomplete: 1/3 bubbles delivered", 1);
      expectObservable(deliverStructured(transcript, gatewayEvent(), turnContext(send, scheduler), config)).toBe("400ms #", undefined, error);
      scheduler.flush();
      expect(sent).toEqual(["on it", "your flight moved to 8pm"]);
    });
  });
});

function turnContext(send: (message: OutboundMessage) => Observable<SendReceipt>, scheduler: TurnContext["scheduler"]): TurnContext {
  return { send, sendStatus: send, scheduler, logger: captureLogs().logger, messageLimit: () => 4096 };
}
