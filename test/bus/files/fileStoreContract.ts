import { randomBytes } from "node:crypto";
import { firstValueFrom, lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { StoredFileMissingError, type FileStore } from "../../../src/bus/files/fileStore.js";

/** The two ends of a file's trip: the worker that puts and removes it, the edge that reads it (the same store in process). */
export interface FileStoreEnds {
  readonly worker: FileStore;
  readonly edge: FileStore;
}

/** A fresh, empty store for each test. */
export type FileStoreFactory = () => Promise<FileStoreEnds>;

export const put = (store: FileStore, name: string, data: Uint8Array): Promise<void> => lastValueFrom(store.put(name, data), { defaultValue: undefined });
export const get = (store: FileStore, name: string): Promise<Uint8Array> => firstValueFrom(store.get(name));
export const remove = (store: FileStore, name: string): Promise<void> => lastValueFrom(store.delete(name), { defaultValue: undefined });
export const count = (store: FileStore): Promise<number> => firstValueFrom(store.count());

/** What every `FileStore` does (src/bus/files/fileStore.ts), whatever holds the bytes. */
export function fileStoreContract(label: string, open: FileStoreFactory): void {
  describe(`${label}: the FileStore contract`, () => {
    it("puts, reads from the other end, counts and deletes", async () => {
      const { worker, edge } = await open();
      const chart = randomBytes(5_000);
      const notes = new TextEncoder().encode("notes");
      await put(worker, "f-chart", chart);
      await put(worker, "f-notes", notes);
      expect(await count(edge)).toBe(2);
      expect(Buffer.from(await get(edge, "f-chart")).equals(chart)).toBe(true);
      expect(new TextDecoder().decode(await get(edge, "f-notes"))).toBe("notes");

      await remove(worker, "f-chart");
      expect(await count(edge)).toBe(1);
      await remove(worker, "f-notes");
      expect(await count(edge)).toBe(0);
    });

    it("keeps an empty file", async () => {
      const { worker, edge } = await open();
      await put(worker, "f-empty", new Uint8Array(0));
      expect((await get(edge, "f-empty")).length).toBe(0);
      expect(await count(edge)).toBe(1);
    });

    it("answers a name never put, or removed, with StoredFileMissingError naming it", async () => {
      const { worker, edge } = await open();
      const never = await get(edge, "f-never").catch((err: unknown) => err);
      expect(never).toBeInstanceOf(StoredFileMissingError);
      expect((never as StoredFileMissingError).file).toBe("f-never");

      await put(worker, "f-gone", new Uint8Array([1, 2, 3]));
      await remove(worker, "f-gone");
      await expect(get(edge, "f-gone")).rejects.toBeInstanceOf(StoredFileMissingError);
    });

    it("deletes idempotently: a name not there, or deleted twice, completes", async () => {
      const { worker } = await open();
      await remove(worker, "f-never");
      await put(worker, "f-twice", new Uint8Array([7]));
      await remove(worker, "f-twice");
      await remove(worker, "f-twice");
      expect(await count(worker)).toBe(0);
    });

    it("does nothing before a subscription, and the operation once per subscription", async () => {
      const { worker, edge } = await open();
      const putting = worker.put("f-cold", new Uint8Array([1]));
      const deleting = worker.delete("f-cold");
      expect(await count(edge)).toBe(0);
      await lastValueFrom(putting, { defaultValue: undefined });
      expect(await count(edge)).toBe(1);
      await lastValueFrom(deleting, { defaultValue: undefined });
      expect(await count(edge)).toBe(0);
      // The same put Observable again stores again.
      await lastValueFrom(putting, { defaultValue: undefined });
      expect(await count(edge)).toBe(1);
    });

    it("replaces what a name held when it is put again", async () => {
      const { worker, edge } = await open();
      await put(worker, "f-again", new Uint8Array([1, 1]));
      await put(worker, "f-again", new Uint8Array([2]));
      expect([...(await get(edge, "f-again"))]).toEqual([2]);
      expect(await count(edge)).toBe(1);
    });
  });
}
