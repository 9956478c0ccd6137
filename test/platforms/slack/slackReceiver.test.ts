import { describe, expect, it } from "vitest";
import { someConversations, until, useFakeSlack } from "../../fakes/slack/slackFixture.js";
import { logged, useSlackPorts } from "./slackTestConfig.js";

// The Slack port's socket as a receiver a lease starts and stops, and what it survives.

const slack = useFakeSlack({ pingIntervalMs: 0 });
const portOf = useSlackPorts(() => slack.fake);

describe("SlackPort: the socket as a receiver", () => {
  it("standing by, it holds no socket and sends; stopping the receiver closes the socket, starting it reconnects", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const { port, events } = portOf();
    await port.prepare();
    port.start({ receive: false });
    await until(() => port.isConnected);
    expect(fake.socket.openConnections).toBe(0);
    await port.send({ reply_to: "", platform: "slack", channel: { id: general.id }, content: { type: "text", text: "standing by" } });
    port.receiver.startReceiving();
    await until(() => fake.socket.openConnections === 1);
    fake.from(alice).message(general.id, "@turnstream one");
    await until(() => events.length === 1);
    await port.receiver.stopReceiving(0);
    await until(() => fake.socket.openConnections === 0);
    fake.from(alice).message(general.id, "@turnstream two");
    port.receiver.startReceiving();
    await until(() => events.length === 2);
    expect(fake.socket.connectionsOpened).toBe(2);
    expect(fake.socket.maxOpenConnections).toBe(1);
    expect(events.map((event) => event.content.text)).toEqual(["one", "two"]);
  });

  it("Slack's disconnect request and a cut connection are followed by a new connection", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const { port, events, records } = portOf();
    await port.prepare();
    port.start();
    await until(() => fake.socket.openConnections === 1);
    fake.socket.requestDisconnect("refresh_requested");
    await until(() => fake.socket.connectionsOpened === 2 && fake.socket.openConnections === 1);
    fake.socket.dropConnections();
    await until(() => fake.socket.connectionsOpened === 3 && fake.socket.openConnections === 1, 15_000);
    fake.from(alice).message(general.id, "@turnstream still there?");
    await until(() => events.length === 1);
    expect(fake.socket.maxOpenConnections).toBe(1);
    expect(logged(records, "slack socket connected")).toHaveLength(3);
  });

  it("a malformed envelope is dropped with a reason; nothing crashes and the next event arrives", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const { port, events, records } = portOf();
    await port.prepare();
    port.start();
    await until(() => fake.socket.openConnections === 1);
    fake.socket.deliver("events_api", { type: "event_callback", event_id: "Ev0BAD" }, { acceptsResponsePayload: false, eventId: "Ev0BAD" });
    fake.socket.deliver("events_api", { type: "event_callback", event_id: "Ev0ODD", event: { type: "message", text: 42 } }, { acceptsResponsePayload: false, eventId: "Ev0ODD" });
    fake.socket.deliver("slash_commands", { command: "/cancel" }, { acceptsResponsePayload: true });
    fake.from(alice).message(general.id, "@turnstream after the bad ones");
    await until(() => events.length === 1);
    await until(() => logged(records, "slack envelope dropped").length > 0 && logged(records, "slack event skipped").some((record) => record.reason === "malformed"));
    expect(logged(records, "slack envelope ignored")).toMatchObject([{ reason: "unsupported_type", type: "slash_commands" }]);
  });

  it("a revoked app token is retried, warned each time, and connects once restored", async () => {
    const { fake } = slack;
    fake.revokeToken("app");
    const { port, records } = portOf();
    await port.prepare();
    port.start();
    await until(() => logged(records, "slack socket not connected; trying again").length >= 2);
    expect(logged(records, "slack socket not connected; trying again")[0]).toMatchObject({ reason: "app_token_rejected", error: "token_revoked" });
    fake.restoreToken("app");
    await until(() => port.isConnected && fake.socket.openConnections === 1);
  });
});
