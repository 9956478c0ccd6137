import { describe, expect, it } from "vitest";
import { denyEchoText, type TrustConfig, trustDecision } from "../../../operators/ingress/trustGate.js";
import { resolveConfig } from "../../../src/config/index.js";
import { gatewayEvent } from "../../helpers/events.js";

const open: TrustConfig = { allowed_channels: [], allowed_users: [] };
const from = (channel: string, sender: string) =>
  gatewayEvent({ channel: { id: channel, type: "dm" }, sender: { id: sender, name: "n", display_name: "N", is_bot: false } });

describe("trustDecision (§12.3, [gateway] precedence)", () => {
  it("unset flags with empty lists allow everyone", () => {
    expect(trustDecision(from("c1", "u1"), open)).toBe("allow");
  });

  it("L2: an unset allow_all_channels with a non-empty list admits only listed channels", () => {
    const config = { ...open, allowed_channels: ["c1"] };
    expect(trustDecision(from("c1", "u1"), config)).toBe("allow");
    expect(trustDecision(from("c2", "u1"), config)).toBe("deny_scope");
  });

  it("L2: allow_all_channels = false with an empty list denies every channel", () => {
    expect(trustDecision(from("c1", "u1"), { ...open, allow_all_channels: false })).toBe("deny_scope");
  });

  it("L2: allow_all_channels = true admits unlisted channels", () => {
    expect(trustDecision(from("c2", "u1"), { ...open, allow_all_channels: true, allowed_channels: ["c1"] })).toBe("allow");
  });

  it("L2: DMs are judged as channels on the gateway path (is_dm = false)", () => {
    const dm = gatewayEvent({ channel: { id: "private-1", type: "dm" } });
    expect(trustDecision(dm, { ...open, allowed_channels: ["group-1"] })).toBe("deny_scope");
  });

  it("L3: an unset allow_all_users with a non-empty list admits only listed senders", () => {
    const config = { ...open, allowed_users: ["u1"] };
    expect(trustDecision(from("c1", "u1"), config)).toBe("allow");
    expect(trustDecision(from("c1", "u2"), config)).toBe("deny_identity");
  });

  it("L3: allow_all_users = false with an empty list denies everyone", () => {
    expect(trustDecision(from("c1", "u1"), { ...open, allow_all_users: false })).toBe("deny_identity");
  });

  it("L3: allow_all_users = true admits unlisted senders", () => {
    expect(trustDecision(from("c1", "u9"), { ...open, allow_all_users: true, allowed_users: ["u1"] })).toBe("allow");
  });

  it("L3: an empty sender id is always denied, even when everyone is allowed", () => {
    expect(trustDecision(from("c1", ""), open)).toBe("deny_identity");
    expect(trustDecision(from("c1", ""), { ...open, allow_all_users: true, allowed_users: [""] })).toBe("deny_identity");
  });

  it("L2 is decided before L3", () => {
    expect(trustDecision(from("c2", "u2"), { ...open, allowed_channels: ["c1"], allowed_users: ["u1"] })).toBe("deny_scope");
  });

  it("the deny echo text is upstream's, byte for byte", () => {
    expect(denyEchoText("12345")).toBe(
      "⚠️ You are not on this bot's trusted list.\nYour ID: 12345\nAsk the admin to add it to allowed_users.",
    );
  });
});

describe("trustDecision with the resolved [gateway] section", () => {
  const resolve = (gateway: Record<string, unknown>) => {
    const config = resolveConfig({ gateway: { url: "ws://gateway:8080/ws", ...gateway } }, { env: {} }).gateway;
    if (config === undefined) throw new Error("no [gateway]");
    return config;
  };

  it("takes the section as is: no keys → everyone allowed", () => {
    expect(trustDecision(from("c1", "u1"), resolve({}))).toBe("allow");
  });

  it("takes the section as is: a users list without the flag → only listed users", () => {
    const gateway = resolve({ allowed_users: ["u1"] });
    expect(trustDecision(from("c1", "u1"), gateway)).toBe("allow");
    expect(trustDecision(from("c1", "u2"), gateway)).toBe("deny_identity");
  });
});
