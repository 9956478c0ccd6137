import { catchError, concatMap, defaultIfEmpty, defer, EMPTY, from, ignoreElements, map, tap, type Observable } from "rxjs";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { sessionKey } from "../../operators/dispatch/sessionKey.js";
import type { CronFiring, GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { shortenThreadName } from "../../operators/ingress/prompt/threadName.js";
import { isStateOutage } from "../state/errors.js";
import { namesMessage } from "./delivery/messageChange.js";
import { replyChannel } from "./delivery/replyMessage.js";
import type { Turn, TurnContext, TurnHandler } from "./turn.js";

/**
 * A cron job's firing as OpenAB's `fire_cronjob` runs it (reference §5.5), around any turn handler:
 *
 * - a job whose previous firing was still running at this firing's minute is skipped (`overlap`);
 *   a job's firings share one lane (`dispatchKey`), so the previous one has ended by now, and
 *   whether it ran into this minute is known here;
 * - a proactive job's turn runs as it is: nothing is posted before the agent speaks;
 * - otherwise `🕐 [<sender_name>]: <message>` is posted in the job's channel (or its `thread_id`),
 *   a thread is opened from that post unless the job names one, and the turn runs there with the
 *   post as its anchor (the reactions go on it). Its replies answer no event (`reply_to` `""`:
 *   the event's `origin` says no platform sent it).
 */
export function withCronFirings(handler: TurnHandler): TurnHandler {
  /** Per job, when its last firing ended (the scheduler's clock): a few bytes per job a process has run. */
  const lastEnded = new Map<string, number>();
  const wrapped: TurnHandler = (turn, context) => {
    const firing = turn.event.cron;
    if (firing === undefined) return handler(turn, context);
    return defer(() => {
      for (const earlier of turn.batch?.earlier ?? []) skipped(earlier, context);
      const ended = lastEnded.get(firing.job);
      if (firing.catch_up !== true && ended !== undefined && ended > Date.parse(firing.minute)) {
        skipped(turn.event, context);
        return EMPTY;
      }
      context.logger.info({ job: firing.job, minute: firing.minute, platform: turn.event.platform, channel: turn.event.channel.id, proactive: turn.event.proactive }, "cronjob running");
      const end = (): void => void lastEnded.set(firing.job, context.scheduler.now());
      return fire(handler, turn, firing, context).pipe(
        // A turn deferred for a state outage is tried again in place: it has not ended.
        tap({ complete: end, error: (err: unknown) => (isStateOutage(err) ? undefined : end()) }),
      );
    });
  };
  if (handler.bypassesLane !== undefined) {
    const bypasses = handler.bypassesLane.bind(handler);
    wrapped.bypassesLane = (event) => event.cron === undefined && bypasses(event);
  }
  if (handler.interrupt !== undefined) wrapped.interrupt = handler.interrupt.bind(handler);
  return wrapped;
}

/** The `🕐` post's text, as upstream writes it. */
export function cronPostText(event: Pick<GatewayEvent, "sender" | "content">): string {
  return `🕐 [${event.sender.name}]: ${event.content.text}`;
}

function fire(handler: TurnHandler, turn: Turn, firing: CronFiring, context: TurnContext): Observable<unknown> {
  const { event } = turn;
  const plain: GatewayEvent = withoutFiring(event);
  if (event.proactive) return from(handler({ sessionKey: turn.sessionKey, event: plain }, context));
  return context.send(message(event, cronPostText(event))).pipe(
    map((receipt) => receipt.messageId),
    defaultIfEmpty(undefined),
    catchError((err: unknown) => {
      context.logger.error({ reason: "post_failed", job: firing.job, channel: event.channel.id, err }, "failed to send cron message");
      return EMPTY;
    }),
    concatMap((post) => {
      // A `beforeSend` stage dropped the post: nothing shows where the turn would answer.
      if (post === undefined) return EMPTY;
      // A gateway that confirmed without an id names no message: no anchor, and a plain topic.
      const anchored: GatewayEvent = { ...plain, message_id: namesMessage(post) ? post : "" };
      if (replyChannel(event).thread_id !== undefined) return from(handler({ sessionKey: turn.sessionKey, event: anchored }, context));
      return threadFor(anchored, firing, context).pipe(
        concatMap((thread) => {
          const inThread: GatewayEvent = thread === "" ? anchored : { ...anchored, channel: { ...anchored.channel, thread_id: thread } };
          return from(handler({ sessionKey: sessionKey(inThread), event: inThread }, context));
        }),
      );
    }),
  );
}

/**
 * The thread opened from the post (`create_topic` with the post as `quote_message_id`): Discord's thread from a message,
 * Slack's thread under it, a gateway's topic. `""`: the platform keeps the conversation in the
 * channel (Telegram outside a forum). A refusal is told in the channel, as upstream does, and the
 * firing stops.
 */
function threadFor(event: GatewayEvent, firing: CronFiring, context: TurnContext): Observable<string> {
  const from = event.message_id === "" ? {} : { quote_message_id: event.message_id };
  const create: OutboundMessage = { ...message(event, shortenThreadName(event.content.text)), ...from, command: "create_topic" };
  return context.send(create).pipe(
    map((receipt) => receipt.threadId ?? receipt.messageId),
    catchError((err: unknown) => {
      context.logger.error({ reason: "thread_failed", job: firing.job, channel: event.channel.id, err }, "failed to create cron thread");
      return context.send(message(event, "⚠️ cronjob: failed to create thread")).pipe(
        ignoreElements(),
        catchError(() => EMPTY),
      );
    }),
  );
}

function message(event: GatewayEvent, text: string): OutboundMessage {
  return { reply_to: "", platform: event.platform, channel: replyChannel(event), content: { type: "text", text } };
}

function withoutFiring(event: GatewayEvent): GatewayEvent {
  const { cron: _firing, ...plain } = event;
  return plain;
}

function skipped(event: GatewayEvent, context: TurnContext): void {
  context.logger.warn({ reason: "overlap", job: event.cron?.job, minute: event.cron?.minute, channel: event.channel.id }, "skipping cronjob, previous execution still running");
}
