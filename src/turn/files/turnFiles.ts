import { randomUUID } from "node:crypto";
import { defer, EMPTY, from, lastValueFrom, mergeMap, Observable, ignoreElements, type MonoTypeOperatorFunction } from "rxjs";
import type { AgentEvent, AgentFileEvent, AgentFileOutcome, FileReadyEvent } from "../../../operators/delivery/agentEvent.js";
import { isInlineImage } from "../../../operators/delivery/files/mediaType.js";
import { maxFileBytes } from "../../../operators/delivery/files/maxFileBytes.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { FILE_NOT_SENT_LOG } from "../delivery/deliveryLogMessages.js";
import type { TurnContext } from "../turn.js";
import type { FileRoots } from "./readAllowedFile.js";
import { resolveAgentFile, type UnresolvedFile } from "./resolveAgentFile.js";

/** What the default handler's turns may send as files. */
export interface FileSettings {
  /** The working directory (relative paths) and `[agent] outbound_dir`. */
  readonly roots: FileRoots;
  /** `[delivery] max_file_bytes`; absent: each platform's own limit. */
  readonly maxFileBytes?: number;
}

/** What one file came to: the tool's answer, and the event delivery sends (none: no one is told). */
interface FileStep {
  readonly outcome: AgentFileOutcome;
  readonly ready?: FileReadyEvent;
}

const TURN_ENDED: AgentFileOutcome = { kind: "refused", reason: "turn_ended" };

/** A turn sends at most this many files; the rest are refused (`too_many`), so one turn holds a bounded number in the store. */
export const FILES_PER_TURN = 10;

/**
 * One turn's files: each `file` event the agent's stream (or `send_file`) brings is read, checked
 * and put in the bus's file store, and becomes a `file_ready` event at the same place in the turn,
 * which delivery posts where it belongs in the reply. Files are read one at a time, in order, and
 * the events after a file wait for it, so the order of the reply is the agent's. Everything the
 * turn stored is removed from the store when the turn is over (`cleanup`), sent or not.
 */
export class TurnFiles {
  readonly #event: GatewayEvent;
  readonly #context: TurnContext;
  readonly #settings: FileSettings;
  readonly #stored: string[] = [];
  #count = 0;
  /** Cleaned up: a file read after this is removed at once. */
  #over = false;

  constructor(event: GatewayEvent, context: TurnContext, settings: FileSettings) {
    this.#event = event;
    this.#context = context;
    this.#settings = settings;
  }

  /** `file` → `file_ready` (or nothing, for a file no one is to be told about), in place; every other event passes as it came. */
  resolve(): MonoTypeOperatorFunction<AgentEvent> {
    return (source) =>
      new Observable<AgentEvent>((subscriber) => {
        // Events behind a file being read wait here, in order; none wait while no file is read.
        const waiting: AgentEvent[] = [];
        let head = 0;
        let reading = false;
        let ended: { readonly error?: unknown } | undefined;
        const drain = (): void => {
          while (!reading && head < waiting.length) {
            const next = waiting[head] as AgentEvent;
            waiting[head] = undefined as unknown as AgentEvent;
            head += 1;
            if (next.type !== "file") {
              subscriber.next(next);
              continue;
            }
            reading = true;
            void this.#ready(next).then(({ outcome, ready }) => {
              // A turn that ended meanwhile sends nothing more: the tool is told so (what was stored, cleanup removes).
              next.settle?.(subscriber.closed ? TURN_ENDED : outcome);
              if (subscriber.closed) return;
              reading = false;
              if (ready !== undefined) subscriber.next(ready);
              drain();
            });
          }
          if (reading) return;
          waiting.length = 0;
          head = 0;
          if (ended === undefined) return;
          if ("error" in ended) subscriber.error(ended.error);
          else subscriber.complete();
        };
        const subscription = source.subscribe({
          next: (event) => {
            if (!reading && event.type !== "file") subscriber.next(event);
            else {
              waiting.push(event);
              drain();
            }
          },
          error: (error: unknown) => {
            ended = { error };
            drain();
          },
          complete: () => {
            ended = {};
            drain();
          },
        });
        return () => {
          subscription.unsubscribe();
          // Files still waiting will never be read: their calls are answered now, not left to hang.
          for (let at = head; at < waiting.length; at++) {
            const left = waiting[at];
            if (left?.type === "file") left.settle?.(TURN_ENDED);
          }
          waiting.length = 0;
        };
      });
  }

  /** Removes every file this turn stored (best effort: a failure is logged; the store's max age removes it later). */
  cleanup(): Observable<never> {
    return defer(() => {
      this.#over = true;
      const files = this.#context.files;
      const refs = this.#stored.splice(0);
      if (files === undefined || refs.length === 0) return EMPTY;
      return from(refs).pipe(
        mergeMap((ref) => files.delete(ref)),
        ignoreElements(),
      );
    });
  }

  async #ready(event: AgentFileEvent): Promise<FileStep> {
    const caption = event.file.caption ?? "";
    const limit = maxFileBytes(this.#event.platform, this.#settings.maxFileBytes);
    this.#count += 1;
    if (this.#count > FILES_PER_TURN) return this.#refused({ kind: "refused", reason: "too_many", logReason: "too_many", filename: event.file.name ?? "" }, caption, limit);
    let resolved: Awaited<ReturnType<typeof resolveAgentFile>>;
    try {
      resolved = await resolveAgentFile(event.file, this.#settings.roots, limit);
    } catch {
      resolved = { kind: "refused", reason: "not_found", logReason: "unreadable", filename: event.file.name ?? "" };
    }
    if (resolved.kind === "refused") return this.#refused(resolved, caption, limit);
    const { filename, mimeType, bytes } = resolved;
    const files = this.#context.files;
    const ref = randomUUID();
    try {
      if (files === undefined) throw new Error("no file store");
      await lastValueFrom(files.put(ref, bytes), { defaultValue: undefined });
    } catch (err) {
      this.#context.logger.error({ reason: "store_failed", platform: this.#event.platform, size: bytes.length, err }, FILE_NOT_SENT_LOG);
      return { outcome: { kind: "refused", reason: "store_failed" }, ready: { type: "file_ready", filename, size: bytes.length, caption, ready: { kind: "refused", reason: "store_failed" } } };
    }
    if (this.#over) {
      files?.delete(ref).subscribe({ error: () => undefined });
      return { outcome: TURN_ENDED };
    }
    this.#stored.push(ref);
    return {
      outcome: { kind: "accepted", filename, size: bytes.length },
      ready: { type: "file_ready", filename, size: bytes.length, caption, ready: { kind: "stored", mimeType, image: isInlineImage(mimeType), ref } },
    };
  }

  /**
   * A file that will not go: logged, the tool told; the conversation is told only of one too big
   * (its name and size). A path that may not be read tells no one anything.
   */
  #refused(refused: UnresolvedFile, caption: string, limit: number): FileStep {
    this.#context.logger.warn({ reason: refused.logReason, platform: this.#event.platform, ...(refused.size === undefined ? {} : { size: refused.size }) }, FILE_NOT_SENT_LOG);
    const outcome: AgentFileOutcome = refused.reason === "too_big" ? { kind: "refused", reason: "too_big", maxBytes: limit } : { kind: "refused", reason: refused.reason };
    if (refused.reason !== "too_big") return { outcome };
    return { outcome, ready: { type: "file_ready", filename: refused.filename, size: refused.size ?? 0, caption, ready: { kind: "refused", reason: "too_big" } } };
  }
}
