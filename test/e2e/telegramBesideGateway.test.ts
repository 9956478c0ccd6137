import { afterEach, describe, expect, it } from "vitest";
import { someChats, until as untilTrue, useFakeBotApi } from "../fakes/telegram/fakeBotApiFixture.js";
import { startStack, until, userEvent, type Stack } from "../helpers/stack.js";

// Several platform ports in one process: the OpenAB gateway's WebSocket and Telegram spoken to
// natively, each edge with its own rules, each reply out through the port its platform belongs to.

const fake = useFakeBotApi();
let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

describe("[telegram] beside [gateway] in one broker", () => {
  it("answers a gateway platform through the gateway and Telegram natively, and skips Telegram events the gateway brings", async () => {
    const { alice, dm } = someChats(fake.api);
    stack = await startStack({ config: { telegram: { bot_token: fake.api.token, api_root: fake.api.root, allowed_users: [String(alice.id)], streaming: false } } });
    await untilTrue(() => stack!.records.some((r) => r.msg === "telegram bot identified"));

    const viaGateway = userEvent("prose", { platform: "discord", channel: { id: "c-1", type: "dm" } });
    stack.gateway.broadcast(viaGateway);
    fake.api.from(alice).text(dm.id, "prose");
    // A Telegram event through the gateway: Telegram is this broker's own, so it is not taken from there.
    const stray = userEvent("prose", { platform: "telegram" });
    stack.gateway.broadcast(stray);

    const [reply] = await stack.replyCount(1);
    expect(reply).toMatchObject({ platform: "discord", reply_to: viaGateway.event_id, content: { text: "hey what's up" } });
    await untilTrue(() => fake.api.botTexts(dm.id).length === 1, 15_000);
    expect(fake.api.botTexts(dm.id)).toEqual(["hey what's up"]);

    expect(await until(() => stack!.records.some((r) => r.msg === "event skipped" && r.event_id === stray.event_id), 5_000)).toBe(true);
    expect(stack.records.find((r) => r.msg === "event skipped" && r.event_id === stray.event_id)).toMatchObject({ reason: "platform_native" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stack.replies).toHaveLength(1);
    expect(stack.agentEvents().filter((line) => line.startsWith("prompt "))).toHaveLength(2);
  });
});
