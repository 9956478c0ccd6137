import { describe, expect, it } from "vitest";
import type { AssistantMessage, ChatMessage, ChatModel } from "../../src/agent/chatCompletions.js";
import { builtInLookupTable } from "../../src/agent/lookupTool.js";
import { runReplyTurn, type ReplyTurnOptions } from "../../src/agent/replyTurn.js";
import { captureLogs } from "../helpers/logCapture.js";

/** A model that answers from a list, recording how many times it was asked. */
function scriptedModel(answers: AssistantMessage[]): ChatModel & { asked: number } {
  const model = {
    asked: 0,
    complete: async () => {
      model.asked += 1;
      const answer = answers.shift();
      if (answer === undefined) throw new Error("model asked too often");
      return answer;
    },
  };
  return model;
}

const replyWith = (id: string, messages: string[]): AssistantMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name: "reply", arguments: JSON.stringify({ messages }) } }],
});

function options(model: ChatModel, overrides: Partial<ReplyTurnOptions> = {}): ReplyTurnOptions & { records: ReturnType<typeof captureLogs>["records"] } {
  const { logger, records } = captureLogs();
  return {
    mode: "sequential",
    maxBubbles: 4,
    maxBubbleChars: 1200,
    maxSteps: 8,
    schema: "openab.turn.v1",
    silentToken: "NO_REPLY",
    lookupTable: builtInLookupTable,
    model,
    sessionId: "s1",
    send: () => undefined,
    signal: new AbortController().signal,
    logger,
    records,
    ...overrides,
  };
}

describe("runReplyTurn", () => {
  it("sequential: a failed bubble send ends the turn with the send's error and asks the model nothing more", async () => {
    const model = scriptedModel([replyWith("r1", ["one", "two", "three"]), { role: "assistant", content: "unused" }]);
    const sent: unknown[] = [];
    const opts = options(model, {
      send: (_method, params) => {
        if (sent.length === 1) throw new Error("EPIPE");
        sent.push(params);
      },
    });
    const transcript: ChatMessage[] = [{ role: "user", content: "x" }];
    await expect(runReplyTurn([], transcript, opts)).rejects.toThrow("EPIPE");
    expect(sent).toHaveLength(1);
    expect(model.asked).toBe(1);
    expect(opts.records.find((record) => record.msg === "bubble send failed; ending the turn")).toMatchObject({ delivered: 1 });
  });

  it("an aborted signal before the first step is cancelled without asking the model", async () => {
    const model = scriptedModel([]);
    const turn = new AbortController();
    turn.abort();
    expect(await runReplyTurn([], [{ role: "user", content: "x" }], options(model, { signal: turn.signal }))).toBe("cancelled");
    expect(model.asked).toBe(0);
  });

  it("a cancel between tool calls stops before the next one runs", async () => {
    const turn = new AbortController();
    const model = scriptedModel([
      { role: "assistant", content: null, tool_calls: [
        { id: "r1", type: "function", function: { name: "reply", arguments: '{"messages":["one"]}' } },
        { id: "r2", type: "function", function: { name: "reply", arguments: '{"messages":["two"]}' } },
      ] },
    ]);
    const texts: string[] = [];
    const opts = options(model, {
      signal: turn.signal,
      send: (_method, params) => {
        texts.push((params as { update: { content: { text: string } } }).update.content.text);
        turn.abort();
      },
    });
    const transcript: ChatMessage[] = [{ role: "user", content: "x" }];
    expect(await runReplyTurn([], transcript, opts)).toBe("cancelled");
    expect(texts).toEqual(["one"]);
    expect(transcript.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("envelope mode: the transcript records the reply and its result, ready for the next turn", async () => {
    const model = scriptedModel([replyWith("r1", ["hi"])]);
    const transcript: ChatMessage[] = [{ role: "user", content: "x" }];
    expect(await runReplyTurn([{ role: "system", content: "s" }], transcript, options(model, { mode: "envelope" }))).toBe("end_turn");
    expect(transcript.at(-1)).toEqual({ role: "tool", tool_call_id: "r1", content: "delivered 1 message(s) to the user; your turn is over." });
  });
});
