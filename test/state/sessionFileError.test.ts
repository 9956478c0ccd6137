import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { reportingFileErrors, SessionFileError } from "../../src/state/sessionFileError.js";
import { FileSessionStore } from "../../src/state/sessionStore.js";
import { sessionsAsPromises } from "./contracts/storePromises.js";

const dir = mkdtempSync(join(tmpdir(), "turnstream-sessfile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("reportingFileErrors over a real FileSessionStore", () => {
  it("reports a state dir that is a file as SessionFileError (ENOTDIR), the path in its fields only", async () => {
    const notADir = join(dir, "state-file");
    writeFileSync(notADir, "x");
    const path = join(notADir, "sessions.json");
    const store = sessionsAsPromises(reportingFileErrors(new FileSessionStore(path), path));
    const failure = await store.get("telegram:1").catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SessionFileError);
    expect(failure).toMatchObject({ code: "session_store_unavailable", operation: "get", configKey: "pool.state_dir", path, errno: "ENOTDIR" });
    expect((failure as Error).message).not.toContain(dir);
    await expect(store.set("telegram:1", "s1")).rejects.toMatchObject({ operation: "set", errno: "ENOTDIR" });
  });

  it("reports a file that is not a JSON object of ids, without an errno", async () => {
    const path = join(dir, "bad.json");
    writeFileSync(path, "[1,2]");
    const store = sessionsAsPromises(reportingFileErrors(new FileSessionStore(path), path));
    await expect(store.get("k")).rejects.toMatchObject({ code: "session_store_unavailable", errno: undefined, path });
  });

  it("passes a working store through", async () => {
    const path = join(dir, "good", "sessions.json");
    const store = sessionsAsPromises(reportingFileErrors(new FileSessionStore(path), path));
    await store.set("k", "s1");
    expect(await store.get("k")).toBe("s1");
    await store.delete("k");
    expect(await store.get("k")).toBeUndefined();
  });
});
