import { defer, EMPTY, of, throwError, type Observable } from "rxjs";
import { StoredFileMissingError, type FileStore } from "./fileStore.js";

/**
 * The embedded bus's file store: the bytes stay in this process's memory, shared by reference
 * between the worker that put them and the edge that reads them (nothing is copied).
 */
export class MemoryFileStore implements FileStore {
  readonly #files = new Map<string, Uint8Array>();

  put(name: string, data: Uint8Array): Observable<never> {
    return defer(() => {
      this.#files.set(name, data);
      return EMPTY;
    });
  }

  get(name: string): Observable<Uint8Array> {
    return defer(() => {
      const data = this.#files.get(name);
      return data === undefined ? throwError(() => new StoredFileMissingError(name)) : of(data);
    });
  }

  delete(name: string): Observable<never> {
    return defer(() => {
      this.#files.delete(name);
      return EMPTY;
    });
  }

  count(): Observable<number> {
    return defer(() => of(this.#files.size));
  }
}
