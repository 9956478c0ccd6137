import { describe, expect, it } from "vitest";
import { gatewayHelloSchema } from "../../operators/ingress/frames/helloFrame.js";
import { acceptHello, clientHelloFrame } from "../../src/gateway/helloNegotiation.js";
import { captureLogs } from "../helpers/logCapture.js";

const hello = (fields: object) => gatewayHelloSchema.parse({ schema: "openab.gateway.hello.v1", protocol_version: 1, ...fields });

describe("clientHelloFrame", () => {
  it("offers protocol version 1 under turnstream's name and version, for every platform", () => {
    expect(JSON.parse(clientHelloFrame("1.2.3"))).toEqual({
      schema: "openab.gateway.client_hello.v1",
      protocol_version: 1,
      client_name: "turnstream/1.2.3",
      requested_platforms: [],
    });
  });
});

describe("acceptHello", () => {
  it("accepts a version 1 hello and logs how many platforms it describes", () => {
    const { logger, records } = captureLogs();
    const offered = hello({ capabilities: { telegram: { send_ack: true }, discord: {} } });
    expect(acceptHello(offered, logger)).toBe(offered);
    expect(records).toMatchObject([{ msg: "gateway capabilities negotiated", protocol_version: 1, capability_count: 2 }]);
  });

  it("stays in legacy mode on an invalid hello, with reason invalid_hello", () => {
    const { logger, records } = captureLogs();
    expect(acceptHello(undefined, logger)).toBeUndefined();
    expect(records).toMatchObject([{ msg: "invalid gateway hello; continuing in legacy mode", reason: "invalid_hello" }]);
  });

  it("stays in legacy mode on another protocol version, with reason unsupported_version", () => {
    const { logger, records } = captureLogs();
    expect(acceptHello(hello({ protocol_version: 2 }), logger)).toBeUndefined();
    expect(records).toMatchObject([{ msg: "gateway hello version is unsupported; continuing in legacy mode", reason: "unsupported_version", protocol_version: 2 }]);
  });

  it("accepts a hello whose topology is unsupported, and warns about it", () => {
    const { logger, records } = captureLogs();
    const offered = hello({ topology: { supported: false, active_consumers: 3, delivery_mode: "broadcast" } });
    expect(acceptHello(offered, logger)).toBe(offered);
    expect(records.map((r) => r.msg)).toEqual(["gateway capabilities negotiated", "gateway reports unsupported multi-consumer topology"]);
    expect(records[1]).toMatchObject({ active_consumers: 3, delivery_mode: "broadcast" });
  });
});
