import { afterEach, describe, expect, it } from "vitest";
import { Cluster } from "../helpers/cluster.js";
import { shownFragments } from "../helpers/secretFragments.js";
import { until, userEvent } from "../helpers/stack.js";

// The log's masking against a cut, over real processes: a spawned `turnstream run` (embedded bus),
// the dev gateway and the scripted agent, whose stderr lines carry its own [agent.env] value after
// 400 to 500 characters of padding. The broker cuts each line at 500 characters where it reads it,
// before the logger masks the line: a value across the cut showed its head (`Qv8ZenvK-71…(+20 chars)`).

const ENV_NAME = "DEPLOY_KEY";
const ENV_VALUE = "Qv8ZenvK-71c3d5-Wx-9fJq2LmZ0pTb";
const REST = "and the rest of the line";

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

describe("an [agent.env] value in the agent's stderr, wherever the line's cut falls (spawned broker)", () => {
  it("no log line holds any piece of it", async () => {
    cluster = await Cluster.start({ config: { delivery: { mode: "text" }, reactions: { enabled: false } }, agentEnv: { [ENV_NAME]: ENV_VALUE } });
    const member = await cluster.add("all");
    expect(await until(() => cluster?.gateway.brokerCount === 1, 10_000)).toBe(true);
    cluster.gateway.broadcast(userEvent(`stderrsecret ${ENV_NAME} 400 500`));
    await cluster.replyCount(1, 30_000);
    const stderr = () => member.logs.filter((line) => line.msg === "agent stderr" && String(line.line).includes("xxxx"));
    expect(await until(() => stderr().length === 101, 10_000)).toBe(true);
    for (const line of member.logs) expect(shownFragments(JSON.stringify(line), ENV_VALUE, REST), JSON.stringify(line)).toEqual([]);
    // Not vacuous: lines cut inside the value end in its mask, lines cut after it show it masked whole.
    const texts = stderr().map((line) => String(line.line));
    expect(texts.filter((text) => /x \*\*\*…\(\+\d+ chars\)$/.test(text)).length).toBeGreaterThan(10);
    expect(texts.filter((text) => text.includes(`x *** ${REST}`)).length).toBeGreaterThan(10);
  }, 60_000);
});
