import { throwError, type Observable } from "rxjs";
import { FileStoreError, type FileStore } from "../files/fileStore.js";

/** Placeholder until the JetStream object store lands: every operation fails with `FileStoreError`. */
export class ObjectFileStore implements FileStore {
  put(): Observable<never> {
    return throwError(() => new FileStoreError("the NATS file store is not built yet"));
  }
  get(): Observable<Uint8Array> {
    return throwError(() => new FileStoreError("the NATS file store is not built yet"));
  }
  delete(): Observable<never> {
    return throwError(() => new FileStoreError("the NATS file store is not built yet"));
  }
  count(): Observable<number> {
    return throwError(() => new FileStoreError("the NATS file store is not built yet"));
  }
}
