import { concat, defer, finalize, of, type Observable } from "rxjs";
import type { AgentEvent } from "../../../operators/delivery/agentEvent.js";
import type { PromptCapabilities } from "../../../operators/dispatch/contentBlock.js";
import type { AcpClient, ContentBlock } from "../client.js";
import type { McpOffer } from "../mcpServers.js";
import type { AgentHost, AgentHosts } from "./agentHosts.js";
import type { PromptOptions } from "../promptTurn.js";

/** A session held for the duration of `withSession`'s work. */
export interface PooledSession {
  readonly key: string;
  readonly sessionId: string;
  /** No prompt has run on this ACP session yet: it was created (not resumed) for this turn. */
  readonly firstPrompt: boolean;
  /** What the session's agent said its prompts may hold beyond text (its `initialize`). */
  readonly promptCapabilities: PromptCapabilities;
  /**
   * One prompt turn's events (see `AcpClient.prompt`), led by `session_reset` when this turn runs
   * on a fresh session because the previous one was lost.
   */
  prompt(blocks: readonly ContentBlock[]): Observable<AgentEvent>;
}

/** A live session in the pool: its agent, its ACP session and the pool's bookkeeping of it. */
export interface PoolEntry {
  readonly client: AcpClient;
  /** The agent process it lives on, shared with up to `[pool] sessions_per_agent` - 1 other sessions. */
  readonly host: AgentHost;
  readonly sessionId: string;
  /** The session's MCP servers, released with it. */
  readonly offer: McpOffer | undefined;
  /** A prompt ran on the session (a resumed one counts as prompted). */
  prompted: boolean;
  lastActive: number;
  resetPending: boolean;
  turnRunning: boolean;
}

/**
 * The entry as `withSession`'s work sees it: each prompt marks the entry prompted and running
 * until the turn ends (then active now), and the first after a lost session shows the reset notice.
 */
export function pooledSession(key: string, entry: PoolEntry, promptOptions: PromptOptions, clock: { now(): number }): PooledSession {
  return {
    key,
    sessionId: entry.sessionId,
    firstPrompt: !entry.prompted,
    promptCapabilities: entry.client.promptCapabilities,
    prompt: (blocks) =>
      defer(() => {
        entry.prompted = true;
        const reset = entry.resetPending;
        entry.resetPending = false;
        entry.turnRunning = true;
        const turn = entry.client.prompt(entry.sessionId, blocks, promptOptions);
        return (reset ? concat(of<AgentEvent>({ type: "session_reset" }), turn) : turn).pipe(
          finalize(() => {
            entry.turnRunning = false;
            entry.lastActive = clock.now();
          }),
        );
      }),
  };
}

/**
 * Ends a session removed from the pool: its MCP servers stop serving it, then it leaves its agent
 * process, which stops when it was the process's last session.
 */
export function closeEntry(entry: PoolEntry, hosts: AgentHosts): Promise<void> {
  entry.offer?.release();
  return hosts.leave(entry.host);
}
