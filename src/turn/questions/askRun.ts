import { concat, defer, Subscription, type Observable, type Subscriber } from "rxjs";
import type { QuestionEvent } from "../../../operators/delivery/agentEvent.js";
import type { OutboundChoice, OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import type { GatewaySender } from "../../../operators/ingress/gatewayEvent.js";
import { choiceData } from "../../../operators/ask/choiceData.js";
import { labelText } from "../../../operators/ask/labelText.js";
import type { Question, QuestionOutcome } from "../../../operators/ask/question.js";
import { outcomeLine, questionBody, questionHint, toggleLabel, type QuestionClosing, type QuestionStyle } from "../../../operators/ask/questionText.js";
import { markedText } from "../../../operators/delivery/status/markedMessage.js";
import { namesMessage } from "../delivery/messageChange.js";
import type { TurnContext } from "../turn.js";
import { SendError } from "../../wire/index.js";

/** One question on screen, waiting for its answer: what the desk routes answers to. */
export interface OpenQuestion {
  readonly askId: string;
  readonly question: Question;
  readonly style: QuestionStyle;
  /** Who may answer under `requester`: the person whose message started the turn; absent for a turn no one started. */
  readonly requester: GatewaySender | undefined;
  /** Options ticked so far (a multi-select question on buttons). */
  readonly ticked: Set<number>;
  /** Where it stands among the run's questions. */
  readonly place: { readonly index: number; readonly total: number };
  /** The question's message, once the platform named it. */
  messageId: string | undefined;
  /** The marker the post went out under (a recovered re-run's), written again by every edit of it. */
  marker: string | undefined;
  /** The post was answered (with an id or without). */
  posted: boolean;
  /** How the question closed, said once the post is answered when it closed before that. */
  closing: { readonly how: QuestionClosing; readonly answered: string | undefined; readonly first?: Observable<never> } | undefined;
  /** The run this question is part of: answers, timeouts and cancels go through it. */
  readonly run: AskRun;
}

/** What a run needs from the desk that holds it. */
export interface AskRunHost {
  /** Waits for the session's question slot (one question on screen per conversation), then calls `start`. */
  whenFree(sessionKey: string, start: () => void): Subscription;
  opened(sessionKey: string, open: OpenQuestion): void;
  closed(sessionKey: string, open: OpenQuestion): void;
  newAskId(): string;
}

/** Longest name shown for a person ("chosen by", "only … can answer"). */
const PERSON_NAME_CHARS = 64;

/** Who a person is in the chat, for "chosen by" and "only … can answer": the platform's name for them (untrusted), one clean bounded line. */
export function personName(sender: GatewaySender): string {
  const name = sender.display_name.trim() !== "" ? sender.display_name : sender.name.trim() !== "" ? sender.name : sender.id;
  return labelText(name, PERSON_NAME_CHARS);
}

/** What a run is asked to do, and where. */
export interface AskRunOptions {
  readonly sessionKey: string;
  readonly asked: QuestionEvent;
  readonly context: TurnContext;
  /** The conversation and the event the question answers. */
  readonly where: Pick<OutboundMessage, "reply_to" | "platform" | "channel">;
  /** The person whose message started the turn; absent for a turn no one started. */
  readonly requester: GatewaySender | undefined;
  /** Only the requester may answer (`permission_answerers = "requester"`): the hint says so. */
  readonly onlyRequester: boolean;
  /** Completed once the run is settled. */
  readonly subscriber: Subscriber<never>;
}

/**
 * One `QuestionEvent` asked in a turn's conversation: its questions one after another (each in the
 * session's one question slot), all under one deadline, each message closed with what happened
 * (the buttons removed), and the event settled exactly once — on the last answer, the timeout, or
 * the run being torn down (the turn ended or was cancelled: `cancelled`).
 */
export class AskRun {
  readonly #host: AskRunHost;
  readonly #sessionKey: string;
  readonly #asked: QuestionEvent;
  readonly #context: TurnContext;
  readonly #where: Pick<OutboundMessage, "reply_to" | "platform" | "channel">;
  readonly #requester: GatewaySender | undefined;
  /** The name the hint says only they can answer (`requester` answerers); absent when others may too. */
  readonly #onlyAnswerer: string | undefined;
  readonly #style: QuestionStyle;
  readonly #outcomes: QuestionOutcome[] = [];
  readonly #subscriptions = new Subscription();
  readonly #subscriber: Subscriber<never>;
  #current: OpenQuestion | undefined;
  #over = false;

  constructor(host: AskRunHost, options: AskRunOptions) {
    this.#host = host;
    this.#sessionKey = options.sessionKey;
    this.#asked = options.asked;
    this.#context = options.context;
    this.#where = options.where;
    this.#requester = options.requester;
    this.#onlyAnswerer = options.onlyRequester && options.requester !== undefined ? personName(options.requester) : undefined;
    this.#subscriber = options.subscriber;
    this.#style = options.context.capabilities?.(options.where.platform)?.buttons === true ? "buttons" : "numbered";
  }

  get sessionKey(): string {
    return this.#sessionKey;
  }

  /** Starts the deadline and the first question; returns the teardown (cancels what is still open). */
  start(): () => void {
    const { scheduler } = this.#context;
    this.#subscriptions.add(scheduler.schedule(() => this.#timeout(), this.#asked.timeoutMs));
    this.#next();
    return () => this.#end({ kind: "cancelled" });
  }

  /**
   * The open question's answer: the options chosen and by whom; false when it is no longer open
   * (another answer came first). The message is changed after `first` (the tap's own answer).
   */
  answer(open: OpenQuestion, chosen: readonly number[], by: GatewaySender, first?: Observable<never>): boolean {
    if (this.#current !== open) return false;
    const labels = chosen.map((index) => open.question.options[index]?.label ?? "");
    this.#context.logger.info({ sessionKey: this.#sessionKey, askId: open.askId, how: "answered", chosen: chosen.length }, "question answered");
    this.#close(open, { kind: "answered", chosen, by: personName(by) }, { kind: "answered", labels: labels.length === 0 ? ["nothing"] : labels, by: personName(by) }, first);
    this.#next();
    return true;
  }

  /** A multi-select question's option ticked or unticked: its buttons show it, after `first` (the tap's own answer). */
  toggled(open: OpenQuestion, first?: Observable<never>): void {
    if (this.#current !== open || open.messageId === undefined) {
      first?.subscribe();
      return;
    }
    this.#status({ ...this.#message(this.#text(open, undefined)), reply_to: open.messageId, command: "edit_message", choices: this.#choices(open) }, "toggle", first);
  }

  /** Ends the run now with `rest` for every question not answered (cancel, teardown). */
  cancel(): void {
    this.#end({ kind: "cancelled" });
  }

  #next(): void {
    if (this.#over) return;
    const index = this.#outcomes.length;
    const question = this.#asked.questions[index];
    if (question === undefined) {
      this.#settle();
      return;
    }
    this.#subscriptions.add(this.#host.whenFree(this.#sessionKey, () => this.#post(question, index)));
  }

  #post(question: Question, index: number): void {
    if (this.#over) return;
    const place = { index, total: this.#asked.questions.length };
    const open: OpenQuestion = { askId: this.#host.newAskId(), question, style: this.#style, requester: this.#requester, ticked: new Set(), place, messageId: undefined, marker: undefined, posted: false, closing: undefined, run: this };
    this.#current = open;
    this.#host.opened(this.#sessionKey, open);
    this.#context.logger.info({ sessionKey: this.#sessionKey, askId: open.askId, kind: this.#asked.kind, style: this.#style, options: question.options.length }, "question asked");
    const message: OutboundMessage = { ...this.#message(this.#text(open, undefined)), ...(this.#style === "buttons" ? { choices: this.#choices(open) } : {}) };
    // Not torn down with the run: an answer can come before the post's receipt, and the message
    // must still be closed once its id is known.
    // The turn's own send: the delivery ledger keeps the question's id, so a re-run after this
    // worker died marks it expired (`expireStale`).
    this.#context.send(message, { question: true }).subscribe({
      next: (receipt) => {
        if (namesMessage(receipt.messageId)) open.messageId = receipt.messageId;
        open.marker = receipt.marker;
        open.posted = true;
        if (open.closing !== undefined) this.#applyClose(open);
      },
      error: (err: unknown) => {
        open.posted = true;
        if (open.closing !== undefined) return;
        this.#context.logger.warn({ sessionKey: this.#sessionKey, askId: open.askId, reason: "send_failed", code: err instanceof SendError ? err.code : "send_failed", err }, "question not asked");
        this.#end({ kind: "cancelled" });
      },
    });
  }

  #timeout(): void {
    if (this.#over) return;
    this.#context.logger.info({ sessionKey: this.#sessionKey, askId: this.#current?.askId, how: "timeout", answered: this.#outcomes.length, total: this.#asked.questions.length }, "question answered");
    // The conversation is told, not only the question's message changed: an edit does not notify.
    const fallback = this.#asked.fallbackLabel;
    this.#status(this.#message(outcomeLine({ kind: "timeout", ...(fallback === undefined ? {} : { fallback }) })), "timeout_notice");
    this.#end({ kind: "timeout" });
  }

  /** Every question not answered gets `rest`; the open one's message says so. Idempotent. */
  #end(rest: QuestionOutcome & { readonly kind: "timeout" | "cancelled" }): void {
    if (this.#over) return;
    const open = this.#current;
    if (open !== undefined) this.#close(open, rest, rest.kind === "timeout" ? { kind: "timeout", ...(this.#asked.fallbackLabel === undefined ? {} : { fallback: this.#asked.fallbackLabel }) } : { kind: "cancelled" });
    while (this.#outcomes.length < this.#asked.questions.length) this.#outcomes.push(rest);
    this.#settle();
  }

  #close(open: OpenQuestion, outcome: QuestionOutcome, closing: QuestionClosing, first?: Observable<never>): void {
    this.#current = undefined;
    this.#outcomes.push(outcome);
    open.closing = { how: closing, answered: outcome.kind === "answered" ? outcomeLine(closing) : undefined, ...(first === undefined ? {} : { first }) };
    if (open.posted) this.#applyClose(open);
    // Only then the conversation's next question: it must not go out before this one says it is over.
    this.#host.closed(this.#sessionKey, open);
  }

  /**
   * The closed question's message says what happened, its buttons gone; where it cannot be edited,
   * an answer is said in a message of its own. Sent outside the turn's lifetime on purpose: a
   * cancelled turn's question must still lose its buttons.
   */
  #applyClose(open: OpenQuestion): void {
    const closing = open.closing;
    if (closing === undefined) return;
    const capabilities = this.#context.capabilities?.(this.#where.platform);
    if (open.messageId !== undefined && capabilities?.canEdit !== false) {
      // Written when the post's receipt is in: its marker, if any, is known by then.
      this.#status({ ...this.#message(this.#text(open, closing.how)), reply_to: open.messageId, command: "edit_message", ...(open.style === "buttons" ? { choices: [] } : {}) }, "close", closing.first);
    } else if (closing.answered !== undefined) {
      this.#status(this.#message(closing.answered), "close", closing.first);
    } else {
      closing.first?.subscribe();
    }
  }

  #settle(): void {
    if (this.#over) return;
    this.#over = true;
    this.#subscriptions.unsubscribe();
    this.#asked.settle(this.#outcomes.slice(0, this.#asked.questions.length));
    this.#subscriber.complete();
  }

  /** The question's text as it stands, under the marker its post went out with (an edit must write it again). */
  #text(open: OpenQuestion, closing: QuestionClosing | undefined): string {
    const body = questionBody(open.question, open.style, open.place);
    const last = closing === undefined ? questionHint(open.question, open.style, this.#onlyAnswerer) : outcomeLine(closing);
    const text = `${body}\n${last}`;
    return open.marker === undefined ? text : markedText(open.marker, text);
  }

  #choices(open: OpenQuestion): OutboundChoice[] {
    const choices = open.question.options.map((option, i) => ({ label: open.question.multiSelect ? toggleLabel(option.label, open.ticked.has(i)) : option.label, data: choiceData(open.askId, i) }));
    return open.question.multiSelect ? [...choices, { label: "Done", data: choiceData(open.askId, "done") }] : choices;
  }

  /** Every message of a question is plain text: it quotes what the agent wants to do, exactly. */
  #message(text: string): OutboundMessage {
    return { ...this.#where, content: { type: "text", text }, plainText: true };
  }

  /**
   * A send that must not hold the run up or fail it: its failure is only logged. After `first`
   * (a tap's own answer, which the platform needs before anything else) when there is one.
   */
  #status(message: OutboundMessage, what: string, first?: Observable<never>): void {
    const send = defer(() => this.#context.sendStatus(message));
    (first === undefined ? send : concat(first, send)).subscribe({
      error: (err: unknown) => this.#context.logger.warn({ sessionKey: this.#sessionKey, reason: `${what}_failed`, code: err instanceof SendError ? err.code : "send_failed", err }, "question message not updated"),
    });
  }
}
