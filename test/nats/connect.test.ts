import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nkeys } from "@nats-io/transport-node";
import { afterAll, describe, expect, it } from "vitest";
import { BusSetupError } from "../../src/bus/errors.js";
import { RECONNECT_TIME_WAIT_MS, displayUrl, natsConnectOptions } from "../../src/bus/nats/connect.js";
import { busSection } from "../../src/config/sections/bus.js";

const bus = (fields: Record<string, unknown>) => busSection.parse(fields);
const TOKEN = "tok-9f3a-secret";
const PASSWORD = "pw-77c1-secret";

/** The BusSetupError `fn` throws, checked to carry no secret. */
function setupError(fn: () => unknown): BusSetupError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(BusSetupError);
    const text = `${(err as Error).message} ${String((err as Error).cause ?? "")}`;
    for (const secret of [TOKEN, PASSWORD]) expect(text).not.toContain(secret);
    return err as BusSetupError;
  }
  throw new Error("expected a BusSetupError");
}

describe("natsConnectOptions", () => {
  const dir = mkdtempSync(join(tmpdir(), "turnstream-creds-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("maps a nats:// URL to one server, reconnecting forever, with a connection name", () => {
    const options = natsConnectOptions(bus({ url: "nats://nats.internal:4333" }));
    expect(options).toMatchObject({ servers: "nats.internal:4333", name: "turnstream", maxReconnectAttempts: -1, reconnectTimeWait: RECONNECT_TIME_WAIT_MS, noAsyncTraces: true });
    expect(options.tls).toBeUndefined();
    expect(options.token ?? options.user ?? options.pass ?? options.authenticator).toBeUndefined();
    expect(natsConnectOptions(bus({ url: "nats://h:1" }), "turnstream-worker-2").name).toBe("turnstream-worker-2");
  });

  it("requires TLS for a tls:// URL; a missing port is left to the client's default", () => {
    expect(natsConnectOptions(bus({ url: "tls://nats.example.com:4222" }))).toMatchObject({ servers: "nats.example.com:4222", tls: {} });
    expect(natsConnectOptions(bus({ url: "nats://nats.example.com" })).servers).toBe("nats.example.com");
    expect(natsConnectOptions(bus({ url: "nats://[::1]:4222" })).servers).toBe("[::1]:4222");
  });

  it("passes token, or user and password", () => {
    expect(natsConnectOptions(bus({ url: "nats://h:1", token: TOKEN }))).toMatchObject({ token: TOKEN });
    expect(natsConnectOptions(bus({ url: "nats://h:1", user: "edge", password: PASSWORD }))).toMatchObject({ user: "edge", pass: PASSWORD });
  });

  it("takes credentials from the URL's user info: user:password, or a lone token", () => {
    const withUser = natsConnectOptions(bus({ url: `nats://edge:${PASSWORD}@h:1` }));
    expect(withUser).toMatchObject({ servers: "h:1", user: "edge", pass: PASSWORD });
    expect(natsConnectOptions(bus({ url: `nats://${TOKEN}@h:1` }))).toMatchObject({ servers: "h:1", token: TOKEN });
    expect(natsConnectOptions(bus({ url: "nats://a%40b:p%3Aw@h:1" }))).toMatchObject({ user: "a@b", pass: "p:w" });
  });

  it("signs with a .creds file's JWT and nkey seed", () => {
    const user = nkeys.createUser();
    const seed = new TextDecoder().decode(user.getSeed());
    const path = join(dir, "user.creds");
    writeFileSync(
      path,
      `-----BEGIN NATS USER JWT-----\nfake.jwt.token\n------END NATS USER JWT------\n\n` +
        `************************* IMPORTANT *************************\nNKEY Seed printed below\n\n` +
        `-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`,
    );
    const { authenticator } = natsConnectOptions(bus({ url: "nats://h:1", creds: path }));
    if (typeof authenticator !== "function") throw new Error("expected one authenticator");
    const auth: unknown = authenticator("nonce-1");
    expect(auth).toMatchObject({ jwt: "fake.jwt.token", nkey: user.getPublicKey() });
    expect(auth).toHaveProperty("sig", expect.any(String));
  });

  it("stops on a .creds file that is missing or not a credentials file, naming the path", () => {
    const missing = join(dir, "missing.creds");
    const error = setupError(() => natsConnectOptions(bus({ url: "nats://h:1", creds: missing })));
    expect(error.message).toBe(`bus.creds: cannot read ${missing} (ENOENT)`);

    const garbage = join(dir, "garbage.creds");
    writeFileSync(garbage, "not a creds file\n");
    expect(setupError(() => natsConnectOptions(bus({ url: "nats://h:1", creds: garbage }))).message).toContain(`bus.creds: ${garbage} is not a NATS credentials file`);
  });

  it("refuses ambiguous credentials, naming keys but no secret", () => {
    const twice = setupError(() => natsConnectOptions(bus({ url: "nats://h:1", token: TOKEN, user: "u", password: PASSWORD })));
    expect(twice.message).toBe("NATS credentials are given twice (bus.token and bus.user/bus.password): keep one of them");
    const inUrl = setupError(() => natsConnectOptions(bus({ url: `nats://u:${PASSWORD}@h:1`, token: TOKEN })));
    expect(inUrl.message).toContain("bus.token and user info in bus.url");
    expect(setupError(() => natsConnectOptions(bus({ url: "nats://h:1", user: "u" }))).message).toBe("bus.user and bus.password go together: set both or neither");
    expect(setupError(() => natsConnectOptions(bus({ url: "nats://h:1", password: PASSWORD }))).message).toBe("bus.user and bus.password go together: set both or neither");
  });

  it("needs a URL", () => {
    expect(setupError(() => natsConnectOptions(bus({}))).message).toContain("bus.url is not set");
  });
});

describe("displayUrl", () => {
  it("shows scheme, host and port, never user info", () => {
    expect(displayUrl(`nats://edge:${PASSWORD}@nats.internal:4222`)).toBe("nats://nats.internal:4222");
    expect(displayUrl(`tls://${TOKEN}@nats.example.com`)).toBe("tls://nats.example.com");
    expect(displayUrl("not a url")).toBe("<invalid bus.url>");
  });
});
