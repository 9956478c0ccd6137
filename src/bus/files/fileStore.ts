import type { Observable } from "rxjs";

/**
 * Where a file waits between the worker that made it and the edge that posts it. A send carries
 * only the file's name here (`OutboundAttachment.ref`), never its bytes: a file may be far bigger
 * than a bus message (NATS `max_payload`). The worker puts it before the send and removes it once
 * the send settled, delivered or not; the edge only reads it.
 *
 * Every operation is a cold Observable, as the storage ports are (architecture.md): nothing happens
 * before a subscription, and each subscription does the operation once.
 */
export interface FileStore {
  /** Stores `data` under `name` (a fresh, unguessable name the caller made); completes once stored. */
  put(name: string, data: Uint8Array): Observable<never>;
  /** The bytes stored under `name`, then completes; errors with `StoredFileMissingError` when there are none. */
  get(name: string): Observable<Uint8Array>;
  /** Removes `name`; completes, also when it was not there. */
  delete(name: string): Observable<never>;
  /** How many files are stored now: what a test asserts is left behind (0 after every send settled). */
  count(): Observable<number>;
}

/** A send named a stored file that is not (or no longer) there: removed, expired, or never put. */
export class StoredFileMissingError extends Error {
  override readonly name = "StoredFileMissingError";
  constructor(
    readonly file: string,
    options?: ErrorOptions,
  ) {
    super(`stored file ${file} is missing`, options);
  }
}

/** Storing, reading or removing a file failed in the store itself (its server, its bucket). */
export class FileStoreError extends Error {
  override readonly name = "FileStoreError";
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}
