import { randomBytes } from "node:crypto";
import { defer, EMPTY, Observable, Subscription } from "rxjs";
import type { QuestionEvent } from "../../../operators/delivery/agentEvent.js";
import type { OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import { parseChoiceData } from "../../../operators/ask/choiceData.js";
import { mayAnswer, type Answerers } from "../../../operators/ask/mayAnswer.js";
import { parseAnswer } from "../../../operators/ask/parseAnswer.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { sessionKey } from "../../../operators/dispatch/sessionKey.js";
import { replyChannel, replyTo } from "../delivery/replyMessage.js";
import type { TurnContext } from "../turn.js";
import { SendError } from "../../wire/index.js";
import { AskRun, personName, type AskRunHost, type OpenQuestion } from "./askRun.js";

export interface QuestionDeskOptions {
  /** `[agent] permission_answerers`. */
  readonly answerers: Answerers;
  /** Makes the id a question's buttons carry (default: 8 random base-36 characters). */
  readonly newAskId?: () => string;
}

/** Why an answer in the chat was not taken: logged as `question answer ignored`. */
export type IgnoredAnswer = "not_open" | "not_an_answerer" | "bad_data";

const notices: Readonly<Record<Exclude<IgnoredAnswer, "not_an_answerer">, string>> = {
  not_open: "This question is no longer open.",
  bad_data: "This button does not belong to an open question.",
};

/**
 * The questions a worker's turns ask in their conversations (permission requests under
 * `permission_mode = "ask"`, `ask` tool calls), and the answers that come back: one question on
 * screen per conversation at a time, the next waiting for its slot. An answer — a tap on a
 * question's button, or a message that is an option's number or name — reaches the worker that
 * runs the conversation's turns because it is an event of that conversation (the same session
 * key, the same partition), and is taken here at once, without waiting behind the turn
 * (`claims`, the handler's `bypassesLane`); it never starts a turn of its own.
 */
export class QuestionDesk implements AskRunHost {
  readonly #answerers: Answerers;
  readonly #newAskId: () => string;
  /** The question on screen in each conversation. */
  readonly #open = new Map<string, OpenQuestion>();
  /** Each conversation's runs waiting for its question slot, first come first served. */
  readonly #waiting = new Map<string, (() => void)[]>();
  /** Each conversation's runs, to cancel with its turn (`/cancel`). */
  readonly #runs = new Map<string, Set<AskRun>>();

  constructor(options: QuestionDeskOptions) {
    this.#answerers = options.answerers;
    this.#newAskId = options.newAskId ?? (() => randomAskId());
  }

  /** Questions on screen right now, in every conversation. */
  get open(): number {
    return this.#open.size;
  }

  /**
   * Asks a question event in the conversation of the turn `event` started, keyed `key`: completes
   * once the event is settled. Unsubscribing (the turn is over) settles what is still open as
   * `cancelled`. A turn no person started (a cron job's, a webhook's, a proactive event's) asks
   * no one when only the requester may answer: it settles at once as a timeout would.
   */
  ask(key: string, event: GatewayEvent, context: TurnContext, asked: QuestionEvent): Observable<never> {
    return new Observable<never>((subscriber) => {
      const requester = event.origin === undefined && !event.proactive ? event.sender : undefined;
      if (requester === undefined && this.#answerers === "requester") {
        context.logger.info({ sessionKey: key, reason: "no_requester", kind: asked.kind }, "question not asked");
        asked.settle(asked.questions.map(() => ({ kind: "timeout" })));
        subscriber.complete();
        return undefined;
      }
      const where: Pick<OutboundMessage, "reply_to" | "platform" | "channel"> = { reply_to: replyTo(event), platform: event.platform, channel: replyChannel(event) };
      const run = new AskRun(this, { sessionKey: key, asked, context, where, requester, onlyRequester: this.#answerers === "requester", subscriber });
      let runs = this.#runs.get(key);
      if (runs === undefined) this.#runs.set(key, (runs = new Set()));
      runs.add(run);
      const teardown = run.start();
      return () => {
        teardown();
        this.#forget(run);
      };
    });
  }

  /** Whether `event` is an answer for this desk — a tap, or an answer to a question open in its conversation — to be taken at once. */
  claims(event: GatewayEvent): boolean {
    if (event.tap !== undefined) return true;
    const open = this.#open.get(sessionKey(event));
    return open !== undefined && (event.content.attachments?.length ?? 0) === 0 && parseAnswer(event.content.text, open.question) !== undefined;
  }

  /** Takes an answer `claims` said is one: the question it answers moves on, or the person is told why not (where the platform can). */
  answer(event: GatewayEvent, context: TurnContext): Observable<never> {
    return defer(() => {
      // No turn runs for it, whatever it answers: it counts as an answer, not a turn.
      context.note?.("answer");
      const key = sessionKey(event);
      const open = this.#open.get(key);
      if (event.tap !== undefined) return this.#tap(event, event.tap.data, open, context);
      const chosen = open === undefined ? undefined : parseAnswer(event.content.text, open.question);
      if (open === undefined || chosen === undefined) return this.#ignored(event, context, "not_open");
      if (!mayAnswer(event.sender.id, open.requester?.id, this.#answerers)) return this.#ignored(event, context, "not_an_answerer", open);
      open.run.answer(open, chosen, event.sender);
      return EMPTY;
    });
  }

  /** `/cancel`: every question of the conversation's turn is cancelled. Whether there was one. */
  cancel(key: string): boolean {
    const runs = this.#runs.get(key);
    if (runs === undefined || runs.size === 0) return false;
    for (const run of [...runs]) run.cancel();
    return true;
  }

  #tap(event: GatewayEvent, data: string, open: OpenQuestion | undefined, context: TurnContext): Observable<never> {
    const choice = parseChoiceData(data);
    if (choice === undefined) return this.#ignored(event, context, "bad_data");
    if (open === undefined || open.askId !== choice.askId) return this.#ignored(event, context, "not_open");
    if (!mayAnswer(event.sender.id, open.requester?.id, this.#answerers)) return this.#ignored(event, context, "not_an_answerer", open);
    const option = choice.option;
    if ((option === "done" && !open.question.multiSelect) || (option !== "done" && option >= open.question.options.length)) return this.#ignored(event, context, "bad_data");
    // Decided now, in the order taps arrive; the message changes only once the tap itself is
    // answered (the platform shows a spinner until then, and refuses a late answer).
    const answered = this.#answerTap(event, context, "");
    if (option === "done") open.run.answer(open, [...open.ticked].sort((a, b) => a - b), event.sender, answered);
    else if (!open.question.multiSelect) open.run.answer(open, [option], event.sender, answered);
    else {
      if (!open.ticked.delete(option)) open.ticked.add(option);
      open.run.toggled(open, answered);
    }
    return EMPTY;
  }

  #ignored(event: GatewayEvent, context: TurnContext, reason: IgnoredAnswer, open?: OpenQuestion): Observable<never> {
    context.logger.info({ sessionKey: sessionKey(event), event_id: event.event_id, sender: event.sender.id, reason, tap: event.tap !== undefined }, "question answer ignored");
    const notice =
      reason === "not_an_answerer" ? (open?.requester === undefined ? "You cannot answer this question." : `Only ${personName(open.requester)} can answer this.`) : notices[reason];
    if (event.tap !== undefined) return this.#answerTap(event, context, notice);
    // Someone else's reply in words: told so where the platform can show them alone (Slack).
    if (reason === "not_an_answerer" && context.capabilities?.(event.platform)?.notices === true) return this.#notice(event, context, notice);
    return EMPTY;
  }

  /** A notice only the event's sender sees, in its conversation; a failure is only logged. */
  #notice(event: GatewayEvent, context: TurnContext, text: string): Observable<never> {
    return this.#quietly(event, context, { reply_to: event.sender.id, platform: event.platform, channel: replyChannel(event), content: { type: "text", text }, command: "notice", plainText: true }, "notice_failed");
  }

  /** Answers the tap itself (a notice only the person who tapped sees, or none); a failure is only logged. */
  #answerTap(event: GatewayEvent, context: TurnContext, notice: string): Observable<never> {
    const tap = event.tap;
    if (tap === undefined) return EMPTY;
    return this.#quietly(event, context, { reply_to: tap.id, platform: event.platform, channel: replyChannel(event), content: { type: "text", text: notice }, command: "answer_tap", plainText: true }, "answer_tap_failed");
  }

  /** Sends `message` outside the turn's delivery; completes when it is done, a failure logged with `reason` and passed over. */
  #quietly(event: GatewayEvent, context: TurnContext, message: OutboundMessage, reason: string): Observable<never> {
    return new Observable<never>((subscriber) =>
      context.sendStatus(message).subscribe({
        error: (err: unknown) => {
          context.logger.warn({ sessionKey: sessionKey(event), reason, code: err instanceof SendError ? err.code : "send_failed", err }, "question message not updated");
          subscriber.complete();
        },
        complete: () => subscriber.complete(),
      }),
    );
  }

  whenFree(key: string, start: () => void): Subscription {
    if (!this.#open.has(key) && (this.#waiting.get(key)?.length ?? 0) === 0) {
      start();
      return Subscription.EMPTY;
    }
    const queue = this.#waiting.get(key) ?? [];
    this.#waiting.set(key, queue);
    queue.push(start);
    return new Subscription(() => {
      const at = queue.indexOf(start);
      if (at !== -1) queue.splice(at, 1);
      if (queue.length === 0 && this.#waiting.get(key) === queue) this.#waiting.delete(key);
    });
  }

  opened(key: string, open: OpenQuestion): void {
    this.#open.set(key, open);
  }

  closed(key: string, open: OpenQuestion): void {
    if (this.#open.get(key) !== open) return;
    this.#open.delete(key);
    const queue = this.#waiting.get(key);
    const next = queue?.shift();
    if (queue !== undefined && queue.length === 0) this.#waiting.delete(key);
    next?.();
  }

  newAskId(): string {
    return this.#newAskId();
  }

  #forget(run: AskRun): void {
    const runs = this.#runs.get(run.sessionKey);
    runs?.delete(run);
    if (runs?.size === 0) this.#runs.delete(run.sessionKey);
  }
}

function randomAskId(): string {
  return Array.from(randomBytes(8), (byte) => (byte % 36).toString(36)).join("");
}
