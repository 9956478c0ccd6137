import { describe, expect, it } from "vitest";
import { connectionToClose, type ConnectionState } from "../../src/metrics/listenerConnections.js";

const idle = (name: string) => ({ name, idle: true, pipelining: false });
const answering = (name: string) => ({ name, idle: false, pipelining: false });
const pipelining = (name: string) => ({ name, idle: false, pipelining: true });

describe("connectionToClose (open connections from least to most recently active)", () => {
  it("the least recently active pipelining connection first, even before an older idle one", () => {
    expect(connectionToClose<ConnectionState & { name: string }>([idle("a"), answering("b"), pipelining("c"), pipelining("d")])?.name).toBe("c");
  });

  it("else the longest idle one (a fresh probe connection is the most recent, so the last)", () => {
    expect(connectionToClose([answering("a"), idle("b"), answering("c"), idle("probe")])?.name).toBe("b");
  });

  it("none when every connection is answering its one request: the new one is refused", () => {
    expect(connectionToClose([answering("a"), answering("b")])).toBeUndefined();
    expect(connectionToClose([])).toBeUndefined();
  });
});
