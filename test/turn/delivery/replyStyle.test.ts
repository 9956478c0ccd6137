import { describe, expect, it } from "vitest";
import { lastValueFrom, of, type Observable } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import { replyMessage } from "../../../src/turn/delivery/replyMessage.js";
import { messageChange } from "../../../src/turn/delivery/messageChange.js";
import { replyStyleOf, styledContext, type ReplyStyle } from "../../../src/turn/delivery/replyStyle.js";
import type { TurnContext } from "../../../src/turn/turn.js";
import { resolveConfig } from "../../../src/config/index.js";
import { gatewayEvent } from "../../helpers/events.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { testScheduler } from "../../helpers/marbles.js";

const event = gatewayEvent({ message_id: "user-7" });

function recording(): { context: TurnContext; sent: OutboundMessage[]; statuses: OutboundMessage[] } {
  const sent: OutboundMessage[] = [];
  const statuses: OutboundMessage[] = [];
  const send = (message: OutboundMessage): Observable<SendReceipt> => {
    sent.push(message);
    return of({ messageId: "m" });
  };
  const sendStatus = (message: OutboundMessage): Observable<SendReceipt> => {
    statuses.push(message);
    return of({ messageId: "m" });
  };
  return { context: { send, sendStatus, scheduler: testScheduler(), logger: captureLogs().logger, messageLimit: () => 100 }, sent, statuses };
}

/** Sends a three-message reply through the styled context (the first with `firstQuote`, as the paths put a directive's target there). */
async function reply(style: ReplyStyle, firstQuote?: string): Promise<OutboundMessage[]> {
  const { context, sent } = recording();
  const styled = styledContext(context, event, style);
  for (const [index, text] of ["one", "two", "three"].entries()) await lastValueFrom(styled.send(replyMessage(event, text, index === 0 ? firstQuote : undefined)));
  return sent;
}

describe("styledContext: reply_to_mode and response_prefix on every reply message", () => {
  it("quotes per mode: the user's message, or the directive's target when the turn's first message carries one", async () => {
    const quotes = async (mode: ReplyStyle["replyToMode"], first?: string) => (await reply({ replyToMode: mode, prefix: "" }, first)).map((m) => m.quote_message_id);
    expect(await quotes("all")).toEqual(["user-7", "user-7", "user-7"]);
    expect(await quotes("first")).toEqual(["user-7", undefined, undefined]);
    expect(await quotes("off")).toEqual([undefined, undefined, undefined]);
    expect(await quotes("off", "m42")).toEqual([undefined, undefined, undefined]);
    expect(await quotes("all", "m42")).toEqual(["m42", "m42", "m42"]);
    // Unset: OpenAB's rule, left as the delivery path built it.
    expect(await quotes(undefined, "m42")).toEqual(["m42", undefined, undefined]);
  });

  it("returns the context itself when there is nothing to style", () => {
    const { context } = recording();
    expect(styledContext(context, event, { replyToMode: undefined, prefix: "" })).toBe(context);
  });

  it("prefixes messages and edits, leaves deletes and status sends alone, and leaves room for the prefix", async () => {
    const { context, sent, statuses } = recording();
    const styled = styledContext(context, event, { replyToMode: undefined, prefix: "[bot]" });
    await lastValueFrom(styled.send(replyMessage(event, "hello", undefined)));
    await lastValueFrom(styled.send(replyMessage(event, "[bot] already", undefined)));
    await lastValueFrom(styled.send(messageChange(event, "m1", "edited")));
    await lastValueFrom(styled.send(messageChange(event, "m1", undefined)));
    await lastValueFrom(styled.sendStatus({ ...replyMessage(event, "👀", undefined), command: "add_reaction" }));
    expect(sent.map((m) => m.content.text)).toEqual(["[bot] hello", "[bot] already", "[bot] edited", ""]);
    expect(statuses.map((m) => m.content.text)).toEqual(["👀"]);
    expect(styled.messageLimit("telegram")).toBe(100 - "[bot] ".length);
  });

  it("resolves the prefix from [delivery] and the bot's name", () => {
    const config = (response_prefix: string) => resolveConfig({ delivery: { response_prefix } });
    expect(replyStyleOf(config("auto"), "turnbot").prefix).toBe("[turnbot]");
    expect(replyStyleOf(config("auto"), undefined).prefix).toBe("");
    expect(replyStyleOf(config("🤖 {identity.name}:"), "turnbot").prefix).toBe("🤖 turnbot:");
    expect(replyStyleOf(config(""), "turnbot")).toEqual({ replyToMode: undefined, prefix: "" });
  });
});
