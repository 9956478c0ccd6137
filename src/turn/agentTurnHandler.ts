import { catchError, concat, concatMap, defer, EMPTY, finalize, from, identity, tap, throwError, type Observable } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { withReplyCalls } from "../../operators/delivery/withReplyCalls.js";
import type { ContentBlock } from "../../operators/dispatch/contentBlock.js";
import { packBatch, packPrompt } from "../../operators/ingress/prompt/packPrompt.js";
import { historyPrompt, type HistoryEntry } from "../../operators/ingress/prompt/groupHistory.js";
import type { GroupHistory } from "./groupHistory.js";
import { cancelReply, resetReply, slashCommand } from "../../operators/ingress/slashCommand.js";
import type { PooledSession, SessionPool } from "../acp/pool/pool.js";
import type { ReplyToolHost } from "../mcp/replyToolHost.js";
import type { QuestionDesk } from "./questions/questionDesk.js";
import { withQuestions } from "./questions/withQuestions.js";
import { replyToolInstructions } from "../mcp/replyToolInstructions.js";
import type { DedupeStore } from "../state/dedupeStore.js";
import type { StreamingOptions } from "./delivery/deliverStreaming.js";
import { deliveryOf } from "./delivery/deliveryMode.js";
import { replyStyleOf, styledContext } from "./delivery/replyStyle.js";
import { closedAfter, showsActivity, TurnActivity, type ActivitySettings } from "./delivery/turnActivity.js";
import type { DeliveryConfig } from "./delivery/deliverText.js";
import type { SpeechToText } from "../stt/speechToText.js";
import { echoTranscripts, needsTranscripts, transcribed } from "./turnTranscripts.js";
import { markQueued, reactionSettingsOf, TurnReactions } from "./reactions/turnReactions.js";
import { withTyping } from "./typing/withTyping.js";
import { onceOnly } from "./onceOnly.js";
import { sendText } from "./sendText.js";
import { shown, toldTheUser } from "./toldTheUser.js";
import { BatchDispatch } from "./batchDispatch.js";
import { TurnFiles, type FileSettings } from "./files/turnFiles.js";
import { FILE_CLEANUP_FAILED_LOG } from "./delivery/deliveryLogMessages.js";
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
  /**
   * Where the turns' questions for the person in the chat are asked and answered (permission
   * requests under `permission_mode = "ask"`, `ask` tool calls); absent: a question is settled at
   * once as unanswered (timed out).
   */
  readonly questions?: QuestionDesk;
  /**
   * Where the agent's files may be read from and how big they may be (`[agent] working_dir` and
   * `outbound_dir`, `[delivery] max_file_bytes`); absent: only files with their bytes inline are
   * sent, and no path is read.
   */
  readonly files?: FileSettings;
}

/** No directory to read from: a file named by path is never read. */
const NO_FILE_ROOTS: FileSettings = { roots: { workingDir: ".", allowed: [] } };

/**
 * The broker's default turn handler: `/reset` and `/cancel` as OpenAB answers them, and every
 * other event as one ACP prompt turn on the session pool, delivered by `[delivery] mode`: text
 * (OpenAB's text path), structured (one envelope, paced bubbles) or sequential (bubbles sent as
 * the agent decides them). Every message waits for the previous one's ack.
 */
export function createAgentTurnHandler({ pool, config, inboundDedupe, replyTool, streaming, activity, stt, identityName, history, questions, files = NO_FILE_ROOTS }: AgentTurnHandlerOptions): TurnHandler {
  const deliverTurn = deliveryOf(config, streaming);
  const style = replyStyleOf(config, identityName);
  // Instructions for `reply` only where it is offered; `ask` explains itself.
  const instructions = replyTool !== undefined && replyTool.spec.reply !== false && config.delivery.reply_tool_instructions ? replyToolInstructions(replyTool.spec) : undefined;
  /**
   * The turn's prompt: the event (a batch: each of its arrivals) packed as OpenAB packs it, after
   * the reply tool's instructions on a session's first prompt.
   */
  const promptOf = (session: PooledSession, event: GatewayEvent, dispatch: BatchDispatch | undefined, context: TurnContext, earlier: readonly HistoryEntry[]): ContentBlock[] => {
    const receivedAt = new Date(context.scheduler.now()).toISOString();
    const packed = dispatch === undefined ? packPrompt(event, receivedAt, session.promptCapabilities) : packBatch(dispatch.events, dispatch.batch.dropped, receivedAt, session.promptCapabilities);
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
          const turnFiles = new TurnFiles(event, context, files);
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
              withQuestions((asked) =>
                questions === undefined
                  ? defer(() => {
                      asked.settle(asked.questions.map(() => ({ kind: "timeout" })));
                      return EMPTY;
                    })
                  : questions.ask(sessionKey, event, context, asked),
              ),
              // Files (the agent's images and resources, `send_file`) read and stored, at their place in the turn.
              turnFiles.resolve(),
              // The reply may quote the turn's error (`⚠️ <agent error>`): only ever a text fit for a chat.
              catchError((err: unknown) => throwError(() => shown(err, context))),
              deliverTurn(event, replies),
              tools === undefined ? identity : closedAfter(tools),
              // Sent or not, nothing the turn stored outlives it.
              finalize(() => turnFiles.cleanup().subscribe({ error: (err: unknown) => context.logger.warn({ reason: "file_cleanup_failed", err }, FILE_CLEANUP_FAILED_LOG) })),
            );
            return earlier.length === 0 ? reply : concat(reply, forget(event, earlier, context));
          };
          // No history kept (the usual case): no read, no stream of its own.
          return history === undefined ? replyTo([]) : history.forTurn(event).pipe(concatMap(replyTo));
        }),
      )
      .pipe(toldTheUser(event, replies));

  /** Answers `bypassesLane` claimed for the question desk: taken as answers even if their question closed since. */
  const claimed = new WeakSet<GatewayEvent>();
  const handler: TurnHandler = ({ sessionKey, event, batch }, context) => {
    if (event.tap !== undefined || claimed.has(event)) return questions?.answer(event, context) ?? EMPTY;
    switch (slashCommand(event.content.text)) {
      case "cancel":
        return defer(() => {
          // The turn's open questions first: a permission question cancelled answers the agent `cancelled`.
          questions?.cancel(sessionKey);
          return sendText(context, event, cancelReply({ kind: pool.cancel(sessionKey) ? "sent" : "no_turn" }));
        });
      case "reset":
        return from(pool.reset(sessionKey)).pipe(
          concatMap((hadSession) => sendText(context, event, resetReply({ sessionReset: hadSession, dropped: 0 }))),
          toldTheUser(event, context),
        );
      default:
        // "Typing…" where the platform shows one, from before a voice note is transcribed to the turn's end.
        return onceOnly(event, context, inboundDedupe, () =>
          (stt === undefined || !needsTranscripts(event, batch)
            ? runTurn(sessionKey, event, batch, context)
            : transcribed(event, batch, stt.speech).pipe(
                concatMap(([heard, heardBatch]) => concat(stt.echo ? echoTranscripts(heard, context) : EMPTY, runTurn(sessionKey, heard, heardBatch, context))),
              )
          ).pipe(withTyping(event, context)),
        );
    }
  };
  // `/cancel` must reach the turn it cancels, which holds the session's lane; an answer, the
  // question its turn waits on. A tap is never a turn: without a desk it still must not wait.
  handler.bypassesLane = (event) => {
    if (questions !== undefined && questions.claims(event)) {
      claimed.add(event);
      return true;
    }
    return event.tap !== undefined || slashCommand(event.content.text) === "cancel";
  };
  handler.interrupt = (sessionKey) => void pool.cancel(sessionKey);
  return handler;
}
