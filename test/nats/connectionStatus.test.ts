import { describe, expect, it } from "vitest";
import { connectionStatus } from "../../src/bus/nats/connectionStatus.js";

describe("connectionStatus", () => {
  it("maps the client's status events, ignoring routine ones", () => {
    expect(connectionStatus({ type: "disconnect", server: "127.0.0.1:4222" })).toEqual({ type: "disconnected", server: "127.0.0.1:4222" });
    expect(connectionStatus({ type: "reconnecting" })).toEqual({ type: "reconnecting" });
    expect(connectionStatus({ type: "reconnect", server: "127.0.0.1:4222" })).toEqual({ type: "reconnected", server: "127.0.0.1:4222" });
    expect(connectionStatus({ type: "ldm", server: "s" })).toEqual({ type: "lame_duck", server: "s" });
    expect(connectionStatus({ type: "staleConnection" })).toEqual({ type: "stale" });
    const error = new Error("permissions");
    expect(connectionStatus({ type: "error", error })).toEqual({ type: "error", error });
    expect(connectionStatus({ type: "ping", pendingPings: 1 })).toBeUndefined();
    expect(connectionStatus({ type: "update", added: ["x"] })).toBeUndefined();
  });
});
