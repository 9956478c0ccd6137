import { afterEach, describe, expect, it } from "vitest";
import { startStack, userEvent, type Stack } from "../helpers/stack.js";

// Issue 17 hole 7: a real scripted agent process asks session/request_permission with the option
// kinds named in the message and echoes the answer it got as its reply.
let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

const allKinds = "permission allow_once,allow_always,reject_once,reject_always";
const selected = (kind: string) => ({ outcome: { outcome: "selected", optionId: `opt-${kind}` } });
const cancelled = { outcome: { outcome: "cancelled" } };

describe("[agent] permission_mode end to end (real gateway socket, real agent process)", () => {
  it.each([
    ["allow_always", allKinds, selected("allow_always"), "allow_always"],
    ["allow_once", allKinds, selected("allow_once"), "allow_once"],
    ["reject", allKinds, selected("reject_once"), "reject_once"],
    ["allow_once", "permission allow_always,reject_always", cancelled, "none"],
    ["reject", "permission allow_always,reject_always", cancelled, "none"],
  ] as const)("%s, asked with %s: the agent gets %j", async (mode, text, answer, kind) => {
    stack = await startStack({ config: { agent: { permission_mode: mode } } });
    stack.gateway.broadcast(userEvent(text));
    const [reply] = await stack.replyCount(1);
    expect(JSON.parse(reply?.content.text ?? "")).toEqual(answer);
    expect(stack.agentEvents()).toContain(`permission-response ${JSON.stringify(answer)}`);
    expect(stack.records.find((r) => r.msg === "auto-respond permission")).toMatchObject({ level: 30, mode, kind, outcome: answer.outcome, title: "Edit file" });
  });
});
