import type { JetStreamClient } from "@nats-io/jetstream";
import type { ObjectResult } from "@nats-io/obj";
import {
  asyncScheduler,
  catchError,
  defer,
  ignoreElements,
  map,
  mergeMap,
  Observable,
  throwError,
  timeout,
  toArray,
  type SchedulerLike,
} from "rxjs";
import { FileStoreError, StoredFileMissingError, type FileStore } from "../files/fileStore.js";
import { openFileBucket, type FileBucket } from "./fileBucket.js";

/** How long a file may wait in the bucket before the server drops it: a safety net for a worker that died before removing it. */
export const FILE_MAX_AGE_MS = 60 * 60 * 1000;
/** Bytes per chunk message: the object store client's default, well under the default `max_payload` (1 MiB). */
export const FILE_CHUNK_BYTES = 128 * 1024;
/** How long a read waits for the next chunk before it gives up (chunks expired, or purged mid-read). */
export const FILE_STALL_MS = 10_000;

/** Where an `ObjectFileStore` keeps its files, and how patiently it reads them. */
export interface ObjectFileStoreOptions {
  /** The bucket's name, `subjects(prefix).filesBucket`. */
  readonly bucket: string;
  /** Clock of the read's stall timeout (default `asyncScheduler`). */
  readonly scheduler?: SchedulerLike;
  /** How long a read waits for its next chunk (default `FILE_STALL_MS`). */
  readonly stallMs?: number;
}

/**
 * The NATS bus's file store: a JetStream object store bucket, opened (created when absent) on
 * first use so connecting costs nothing more. A file travels as chunks of `FILE_CHUNK_BYTES`, so no
 * message comes near `max_payload` whatever its size; the bucket drops what is older than
 * `FILE_MAX_AGE_MS`. `delete` also removes the client's tombstone (names are never reused), so once
 * every send settled the bucket holds nothing.
 *
 * Every operation is cold, its round trips run once per subscription; a failure is a
 * `FileStoreError`, with the client's error as `cause` when the client failed.
 */
export class ObjectFileStore implements FileStore {
  readonly #js: JetStreamClient;
  readonly #bucketName: string;
  readonly #scheduler: SchedulerLike;
  readonly #stallMs: number;
  #opening: Promise<FileBucket> | undefined;

  constructor(js: JetStreamClient, options: ObjectFileStoreOptions) {
    this.#js = js;
    this.#bucketName = options.bucket;
    this.#scheduler = options.scheduler ?? asyncScheduler;
    this.#stallMs = options.stallMs ?? FILE_STALL_MS;
  }

  put(name: string, data: Uint8Array): Observable<never> {
    // A custom Observable: an unsubscription aborts the upload between chunks, and the client then purges what it sent.
    return new Observable<never>((subscriber) => {
      const abort = new AbortController();
      this.#bucket()
        .then((bucket) => bucket.store.put({ name, options: { max_chunk_size: FILE_CHUNK_BYTES } }, slicesOf(data, FILE_CHUNK_BYTES, abort.signal)))
        .then(
          () => subscriber.complete(),
          (err: unknown) => subscriber.error(this.#failure("put", name, err)),
        );
      return () => abort.abort(new Error(`put of ${name} abandoned`));
    });
  }

  get(name: string): Observable<Uint8Array> {
    return defer(() => this.#bucket()).pipe(
      mergeMap((bucket) => objectIn(bucket, name)),
      mergeMap((result) => (result === null ? throwError(() => new StoredFileMissingError(name)) : this.#read(result))),
      catchError((err: unknown) => throwError(() => (err instanceof StoredFileMissingError ? err : this.#failure("get", name, err)))),
    );
  }

  delete(name: string): Observable<never> {
    return this.#io("delete", name, async (bucket) => {
      await bucket.store.delete(name);
      // The client leaves a tombstone under the name; no name is put twice, so it goes too.
      const tombstone = await bucket.store.info(name);
      if (tombstone?.deleted === true) await bucket.removeMessage(tombstone.revision);
    }).pipe(ignoreElements());
  }

  count(): Observable<number> {
    return this.#io("count", undefined, async (bucket) => (await bucket.store.list()).length);
  }

  /** The bucket, opened once; a failed open is tried again by the next operation. */
  #bucket(): Promise<FileBucket> {
    this.#opening ??= openFileBucket(this.#js, this.#bucketName, FILE_MAX_AGE_MS).catch((err: unknown) => {
      this.#opening = undefined;
      throw err;
    });
    return this.#opening;
  }

  /** A stored file's chunks joined, failing when the next chunk is `stallMs` late. */
  #read(result: ObjectResult): Observable<Uint8Array> {
    // The data stream fails with the same error; this promise would otherwise reject unhandled.
    result.error.catch(() => undefined);
    return chunksOf(result.data).pipe(
      timeout({ each: this.#stallMs, scheduler: this.#scheduler, with: () => throwError(() => new Error(`no chunk for ${this.#stallMs} ms`)) }),
      toArray(),
      map(joined),
    );
  }

  #io<T>(operation: "delete" | "count", name: string | undefined, work: (bucket: FileBucket) => Promise<T>): Observable<T> {
    return defer(async () => work(await this.#bucket())).pipe(catchError((err: unknown) => throwError(() => this.#failure(operation, name, err))));
  }

  #failure(operation: "put" | "get" | "delete" | "count", name: string | undefined, err: unknown): FileStoreError {
    if (err instanceof FileStoreError) return err;
    const what = name === undefined ? "files" : `file ${name}`;
    const reason = err instanceof Error ? err.message : String(err);
    return new FileStoreError(`cannot ${operation} ${what} in object store bucket "${this.#bucketName}": ${reason}`, { cause: err });
  }
}

/**
 * `name`'s object in `bucket`, null when there is none. A custom Observable: a result that arrives
 * after the subscriber left is cancelled, so the consumer the client started for it stops.
 */
function objectIn(bucket: FileBucket, name: string): Observable<ObjectResult | null> {
  return new Observable<ObjectResult | null>((subscriber) => {
    let left = false;
    bucket.store.get(name).then(
      (result) => {
        if (!left) {
          subscriber.next(result);
          return subscriber.complete();
        }
        result?.error.catch(() => undefined);
        void result?.data.cancel().catch(() => undefined);
      },
      (err: unknown) => subscriber.error(err),
    );
    return () => {
      left = true;
    };
  });
}

/** `data` as views of `size` bytes (no copies), read one at a time; fails at the next read once `signal` aborted. */
function slicesOf(data: Uint8Array, size: number, signal: AbortSignal): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (signal.aborted) return controller.error(signal.reason);
        if (offset >= data.length) return controller.close();
        controller.enqueue(data.subarray(offset, offset + size));
        offset += size;
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The chunks a stream yields. A custom Observable: rxjs's `from(stream)` releases the reader on
 * unsubscribe without cancelling the stream, which would leave the object store's consumer running.
 */
function chunksOf(stream: ReadableStream<Uint8Array>): Observable<Uint8Array> {
  return new Observable<Uint8Array>((subscriber) => {
    const reader = stream.getReader();
    const next = (): void => {
      reader.read().then(
        ({ done, value }) => {
          if (done) return subscriber.complete();
          subscriber.next(value);
          if (!subscriber.closed) next();
        },
        (err: unknown) => subscriber.error(err),
      );
    };
    next();
    return () => void reader.cancel().catch(() => undefined);
  });
}

/** One array of the parts' bytes (the part itself when there is one). */
function joined(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const whole = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
}
