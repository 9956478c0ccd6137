import { describe, expect, it } from "vitest";
import { sendClassOf } from "../../../../operators/delivery/flow/sendClass.js";

describe("sendClassOf", () => {
  it("groups are group and supergroup channels; proactive events are not replies to people", () => {
    expect(sendClassOf({ channel: { id: "1", type: "supergroup" } })).toEqual({ group: true, human: true });
    expect(sendClassOf({ channel: { id: "1", type: "dm" }, proactive: true })).toEqual({ group: false, human: false });
  });
});
