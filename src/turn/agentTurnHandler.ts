import { catchError, concat, concatMap, defer, EMPTY, finalize, from, identity, ignoreElements, tap, throwError, type Observable, type OperatorFunction } from "rxjs";
import type { AgentEvent } from "../../operators/delivery/agentEvent.js";
import { collectTranscript } from "../../operators/delivery/collectTranscript.js";
import { warnIgnoredBubbles } from "../../operators/delivery/sequential/sequentialBubbles.js";
import { compositeKey } from "../../operators/dispatch/compositeKey.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { inboundDedupeKey } from "../../operators/ingress/inboundDedupe.js";
import { withReplyCalls } from "../../operators/delivery/withReplyCalls.js";
import type { ContentBlock } from "../../operators/dispatch/contentBlock.js";
import { packBatch, packPrompt } from "../../operators/ingress/prompt/packPrompt.js";
import { historyPrompt, type HistoryEntry } from "../../operators/ingress/prompt/groupHistory.js";
import type { GroupHistory } from "./groupHistory.js";
import { cancelReply, resetReply, slashCommand } from "../../operators/ingress/slashCommand.js";
import type { PooledSession, SessionPool } from "../acp/pool/pool.js";
import type { ReplyToolHost } from "../mcp/replyToolHost.js";
import { replyToolInstructions } from "../mcp/replyToolInstructions.js";
import type { DedupeStore } from "../state/dedupeStore.js";
import { BrokerFailureError } from "../failure/brokerFailure.js";
import { isStateOutage } from "../state/errors.js";
import { AgentTurnError, DeliveryIncompleteError } from "../pipeline/errors.js";
import { SendError } from "../wire/index.js";
import { deliverSequential } from "./delivery/deliverSequential.js";
import { SEQUENTIAL_MODE_OFF_WARNING } from "./delivery/deliveryLogMessages.js";
import { deliverStreaming, type StreamingOptions } from "./delivery/deliverStreaming.js";
import { deliverStructured } from "./delivery/deliverStructured.js";
import { deliverBlocks } from "./delivery/deliverBlocks.js";
import { replyGaps } from "./delivery/replyPacing.js";
import { replyStyleOf, styledContext } from "./delivery/replyStyle.js";
import { closedAfter, showsActivity, TurnActivity, type ActivitySettings } from "./delivery/turnActivity.js";
import { deliverText, type DeliveryConfig } from "./delivery/deliverText.js";
import { replyMessage } from "./delivery/replyMessage.js";
import type { SpeechToText } from "../stt/speechToText.js";
import { echoTranscripts, needsTranscripts, transcribed } from "./turnTranscripts.js";
import { markQueued, reactionSettingsOf, TurnReactions } from "./reactions/turnReactions.js";
import { userFacingError } from "./userFacingError.js";
import { BatchDispatch } from "./batchDispatch.js";
import type { TurnBatch, TurnContext, TurnHandler } from "./turn.js";

export interface AgentTurnHandlerOptions {
  readonly pool: SessionPool;
  readonly config: DeliveryConfig;
  /** A human message redelivered (same platform, channel, thread, message_id) runs once; absent: no dedupe. */
  readonly inboundDedupe?: DedupeStore;
  /** The `reply` tool the pool offers each session (structured and sequential modes); absent: none. */
  readonly replyTool?: ReplyToolHost;
  /** `[gateway] streaming = true` (text mode): replies are edited in place where the platform can. */
  readonly streaming?: StreamingOptions;
  /** `[activity] enabled`: a transient message lists the turn's tool calls while they run. */
  readonly activity?: ActivitySettings;
  /** `[stt] enabled`: audio attachments are transcribed before the turn; `echo` posts `> 🎤 <transcript>` first. */
  readonly stt?: { readonly speech: SpeechToText; readonly echo: boolean };
  /** The bot's name in the chat (`[gateway] bot_username`): `{identity.name}` in the response prefix. */
  readonly identityName?: string;
  /** `[inbound] history_limit` > 0: a group turn's prompt is headed by the messages kept since the bot last answered. */
  readonly history?: GroupHistory;
}

/**
 * The broker's default turn handler: `/reset` and `/cancel` as OpenAB answers them, and every
 * other event as one ACP prompt turn on the session pool, delivered by `[delivery] mode`: text
 * (OpenAB's text path), structured (one envelope, paced bubbles) or sequential (bubbles sent as
 * the agent decides them). Every message waits for the previous one's ack.
 */
export function createAgentTurnHandler({ pool, config, inboundDedupe, replyTool, streaming, activity, stt, identityName, history }: AgentTurnHandlerOptions): TurnHandler {
  const deliverTurn = deliveryOf(config, streaming);
  const style = replyStyleOf(config, identityName);
  const instructions = replyTool !== undefined && config.delivery.reply_tool_instructions ? replyToolInstructions(replyTool.spec) : undefined;
  /**
   * The turn's prompt: the event (a batch: each of its arrivals) packed as OpenAB packs it, after
   * the reply tool's instructions on a session's first prompt.
   */
  const promptOf = (session: PooledSession, event: GatewayEvent, dispatch: BatchDispatch | undefined, context: TurnContext, earlier: readonly HistoryEntry[]): ContentBlock[] => {
    const receivedAt = new Date(context.scheduler.now()).toISOString();
    const packed = dispatch === undefined ? packPrompt(event, receivedAt) : packBatch(dispatch.events, dispatch.batch.dropped, receivedAt);
    // Group history heads the prompt, closed by the marker that says what to answer.
    const past = historyPrompt(earlier);
    const withHistory: ContentBlock[] = past === undefined ? packed : [{ type: "text", text: past }, ...packed];
    return instructions !== undefined && session.firstPrompt ? [{ type: "text", text: instructions }, ...withHistory] : withHistory;
  };
  /** After the turn completed, its group history is forgotten (best effort: a failure only repeats it next time). */
  const forget = (event: GatewayEvent, earlier: readonly HistoryEntry[], context: TurnContext): Observable<never> =>
    history === undefined
      ? EMPTY
      : history.packed(event, earlier).pipe(
          catchError((err: unknown) => {
            context.logger.warn({ reason: "history_write_failed", err }, "group history not cleared; the next turn packs it again");
            return EMPTY;
          }),
        );
  const reactionSettings = reactionSettingsOf(config.reactions);
  /**
   * One ACP prompt turn on the key's session, with the `reply` calls made during it, delivered by
   * the configured mode, its progress shown as a reaction on the user's message.
   */
  const runTurn = (sessionKey: string, event: GatewayEvent, batch: TurnBatch | undefined, context: TurnContext): Observable<never> =>
    defer(() => {
      // A batch: 👀 on every arrival, the turn's own reaction on the last (its event), as upstream.
      const dispatch = batch === undefined ? undefined : new BatchDispatch(event, batch, context);
      if (batch !== undefined) markQueued(batch.earlier, context, reactionSettings);
      const reactions = new TurnReactions(event, context, reactionSettings);
      reactions.queued();
      return promptTurn(sessionKey, event, dispatch, context, styledContext(context, event, style), reactions).pipe(
        tap({ complete: () => reactions.end(true), error: () => reactions.end(false) }),
        // Cancelled from outside (shutdown): nothing more is shown. After `end` this changes nothing.
        finalize(() => {
          reactions.abandon();
          dispatch?.done();
        }),
      );
    });
  /** `replies`: `context` with the reply style on its messages; the transient activity message goes out plain. */
  const promptTurn = (sessionKey: string, event: GatewayEvent, dispatch: BatchDispatch | undefined, context: TurnContext, replies: TurnContext, reactions: TurnReactions): Observable<never> =>
    pool
      .withSession(sessionKey, (session) =>
        defer(() => {
          const tools = activity !== undefined && showsActivity(event, context) ? new TurnActivity(event, context, activity) : undefined;
          reactions.thinking();
          const replyTo = (earlier: readonly HistoryEntry[]): Observable<never> => {
            const blocks = promptOf(session, event, dispatch, context, earlier);
            dispatch?.packed(blocks.length);
            const reply = session.prompt(blocks).pipe(
              tap({
                next: (update) => reactions.update(update),
                error: () => {
                  reactions.agentFailed();
                  context.note?.("agent_error");
                },
              }),
              tools === undefined ? identity : tools.watch(),
              replyTool === undefined ? identity : withReplyCalls(replyTool.turnCalls(sessionKey)),
              // The reply may quote the turn's error (`⚠️ <agent error>`): only ever a text fit for a chat.
              catchError((err: unknown) => throwError(() => shown(err, context))),
              deliverTurn(event, replies),
              tools === undefined ? identity : closedAfter(tools),
            );
            return earlier.length === 0 ? reply : concat(reply, forget(event, earlier, context));
          };
          // No history kept (the usual case): no read, no stream of its own.
          return history === undefined ? replyTo([]) : history.forTurn(event).pipe(concatMap(replyTo));
        }),
      )
      .pipe(toldTheUser(event, replies));

  const handler: TurnHandler = ({ sessionKey, event, batch }, context) => {
    switch (slashCommand(event.content.text)) {
      case "cancel":
        return defer(() => sendText(context, event, cancelReply({ kind: pool.cancel(sessionKey) ? "sent" : "no_turn" })));
      case "reset":
        return from(pool.reset(sessionKey)).pipe(
          concatMap((hadSession) => sendText(context, event, resetReply({ sessionReset: hadSession, dropped: 0 }))),
          toldTheUser(event, context),
        );
      default:
        return onceOnly(event, context, inboundDedupe, () =>
          stt === undefined || !needsTranscripts(event, batch)
            ? runTurn(sessionKey, event, batch, context)
            : transcribed(event, batch, stt.speech).pipe(
                concatMap(([heard, heardBatch]) => concat(stt.echo ? echoTranscripts(heard, context) : EMPTY, runTurn(sessionKey, heard, heardBatch, context))),
              ),
        );
    }
  };
  // `/cancel` must reach the turn it cancels, which holds the session's lane.
  handler.bypassesLane = (event) => slashCommand(event.content.text) === "cancel";
  handler.interrupt = (sessionKey) => void pool.cancel(sessionKey);
  return handler;
}

/**
 * Runs a human message's turn unless it is a redelivery of one that already ran (or is running):
 * claimed before the turn, committed after it, released when it failed so a redelivery can run it.
 * The claim's owner is the event (`platform:event_id`, escaped as `compositeKey` does): the same
 * event redelivered after its worker died claims it again, and the delivery ledger decides what to
 * repeat.
 */
function onceOnly(event: GatewayEvent, context: TurnContext, dedupe: DedupeStore | undefined, turn: () => Observable<never>): Observable<never> {
  const key = event.proactive === true || dedupe === undefined ? undefined : inboundDedupeKey(event);
  if (key === undefined || dedupe === undefined) return turn();
  const owner = compositeKey([event.platform, event.event_id]);
  return dedupe.claim(key, owner, context.scheduler.now()).pipe(
    concatMap((claim) => {
      if (claim !== "claimed") {
        context.logger.info({ reason: claim, event_id: event.event_id, message_id: event.message_id }, "redelivered message skipped");
        context.note?.("duplicate");
        return EMPTY;
      }
      let settled = false;
      // Dedupe bookkeeping after the turn is best effort: a store that failed is logged, never the turn's outcome.
      const noted = (write: Observable<never>) =>
        write.pipe(
          catchError((err: unknown) => {
            context.logger.warn({ reason: "dedupe_write_failed", err }, "inbound dedupe write failed");
            return EMPTY;
          }),
        );
      return concat(
        turn().pipe(
          catchError((err: unknown) => {
            settled = true;
            return concat(noted(dedupe.release(key, owner)), throwError(() => err));
          }),
        ),
        defer(() => {
          settled = true;
          return noted(dedupe.commit(key, context.scheduler.now()));
        }),
      ).pipe(
        finalize(() => {
          if (!settled) dedupe.release(key, owner).subscribe({ error: () => undefined }); // cancelled (shutdown): let a redelivery run it
        }),
      );
    }),
  );
}

/**
 * The configured delivery mode, as an operator over a turn's events. With streaming on, a text
 * reply streams where the platform can edit in place: always without a hello (as upstream), and
 * after one where it advertises `streaming_mode = "edit"` and `can_edit` (its placeholder as its
 * `show_streaming_placeholder` says); elsewhere it is sent once, noted once per platform.
 */
function deliveryOf(config: DeliveryConfig, streaming: StreamingOptions | undefined): (event: GatewayEvent, context: TurnContext) => OperatorFunction<AgentEvent, never> {
  if (streaming === undefined || config.delivery.mode !== "text") return (event, context) => deliver(event, context, config);
  const noted = new Set<string>();
  return (event, context) => {
    const capabilities = context.capabilities?.(event.platform);
    if (capabilities === undefined) return deliverStreaming(event, context, config, streaming);
    if (capabilities.streamingMode === "edit" && capabilities.canEdit) return deliverStreaming(event, context, config, { placeholder: capabilities.showStreamingPlaceholder });
    if (!noted.has(event.platform)) {
      noted.add(event.platform);
      context.logger.info({ reason: "streaming_unsupported", platform: event.platform, streamingMode: capabilities.streamingMode, canEdit: capabilities.canEdit }, "platform does not stream edits; replies are sent once");
    }
    return deliver(event, context, config);
  };
}

/** The configured delivery mode, as an operator over the turn's events. */
function deliver(event: GatewayEvent, context: TurnContext, config: DeliveryConfig): OperatorFunction<AgentEvent, never> {
  if (config.delivery.mode === "sequential") return deliverSequential(event, context, config);
  const deliverTranscript = config.delivery.mode === "structured" ? deliverStructured : deliverText;
  return (events) =>
    events.pipe(
      // Only sequential mode sends openab_message bubbles; elsewhere they are noted once and ignored.
      warnIgnoredBubbles(() => context.logger.warn({ reason: "mode_not_sequential", mode: config.delivery.mode }, SEQUENTIAL_MODE_OFF_WARNING)),
      config.delivery.blocks.enabled
        ? deliverBlocks(event, context, config, replyGaps(config.delivery, 0))
        : (turn) => turn.pipe(
            collectTranscript(),
            concatMap((transcript) => deliverTranscript(transcript, event, context, config)),
          ),
    );
}

/**
 * A failed turn tells the user `⚠️ <error>` (the agent's own error, the agent could not start, a
 * bubble turn failed after bubbles went out), then fails with the original error for the log —
 * unless the gateway is what failed, or the reply showed it already.
 */
function toldTheUser(event: GatewayEvent, context: TurnContext): OperatorFunction<never, never> {
  return catchError((err: unknown) =>
    failedAtTheGateway(err) ? throwError(() => err) : concat(sendText(context, event, `⚠️ ${shown(err, context).message}`), throwError(() => err)),
  );
}

/**
 * What the user may see of `err` (see `userFacingError`). A broker-side failure is logged here
 * with what the operator fixes: the config key, the path and the errno.
 */
function shown(err: unknown, context: TurnContext): Error {
  const safe = userFacingError(err);
  if (safe instanceof BrokerFailureError) {
    const { code, configKey, path, errno } = safe;
    context.logger.error({ reason: code, configKey, path, errno, err: safe }, "turn failed on the broker side");
  }
  return safe;
}

/**
 * Nothing more to tell the user: the gateway itself failed, the delivered reply already showed the
 * error, or shared state was unreachable (the broker tries the event again).
 */
function failedAtTheGateway(err: unknown): boolean {
  return (
    err instanceof SendError ||
    isStateOutage(err) ||
    (err instanceof DeliveryIncompleteError && err.cause instanceof SendError) ||
    (err instanceof AgentTurnError && err.notified)
  );
}

function sendText(context: TurnContext, event: GatewayEvent, text: string): Observable<never> {
  return context.send(replyMessage(event, text, undefined)).pipe(ignoreElements());
}
