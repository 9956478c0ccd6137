import type { AcpClient } from "../client.js";

/** One agent process and how many of the pool's sessions live on it (or are being opened there). */
export interface AgentHost {
  /** Resolves once the process is initialized; rejects when it failed to start. */
  readonly started: Promise<AcpClient>;
  /** The started client, once `started` resolved. */
  client: AcpClient | undefined;
  /** Sessions placed here and not yet gone: live, being opened, or being closed. */
  sessions: number;
  /** The process failed to start, or is being stopped: no new session goes here. */
  retired: boolean;
}

/**
 * The pool's agent processes, each hosting up to `perAgent` sessions (`[pool] sessions_per_agent`).
 * A session is placed on a process with room — an alive one, or one still starting — else on a
 * fresh one; a process whose last session left is stopped. With `perAgent` 1 each session has a
 * process of its own, started for it and stopped with it (OpenAB's model). Every session of a
 * process shares its fate: a crash or a hung turn's kill ends them all, and each key's next
 * session goes to a process with room.
 */
export class AgentHosts {
  readonly #perAgent: number;
  readonly #start: () => Promise<AcpClient>;
  readonly #hosts = new Set<AgentHost>();

  constructor(perAgent: number, start: () => Promise<AcpClient>) {
    this.#perAgent = perAgent;
    this.#start = start;
  }

  /** Agent processes held: starting, running, or hosting sessions still being closed. */
  get size(): number {
    return this.#hosts.size;
  }

  /**
   * A place for one more session: a process with room (the fullest first, so processes empty out
   * and stop), else a fresh one. The caller awaits `host.started` and owes one `leave(host)`,
   * whether the session opened or not.
   */
  place(): AgentHost {
    const host = this.#roomy() ?? this.#fresh();
    host.sessions += 1;
    return host;
  }

  /** A session left `host`; when it was the last, the process is stopped (resolves once it is gone). */
  async leave(host: AgentHost): Promise<void> {
    host.sessions -= 1;
    if (host.sessions > 0) return;
    host.retired = true;
    this.#hosts.delete(host);
    const client = host.client ?? (await host.started.catch(() => undefined));
    await client?.close();
  }

  /** The fullest process with room whose agent is alive (or still starting). */
  #roomy(): AgentHost | undefined {
    let best: AgentHost | undefined;
    for (const host of this.#hosts) {
      if (host.retired || host.sessions >= this.#perAgent) continue;
      if (host.client !== undefined && !host.client.alive) continue;
      if (best === undefined || host.sessions > best.sessions) best = host;
    }
    return best;
  }

  #fresh(): AgentHost {
    const host: AgentHost = { started: this.#start(), client: undefined, sessions: 0, retired: false };
    this.#hosts.add(host);
    host.started.then(
      (client) => {
        host.client = client;
      },
      () => {
        host.retired = true;
      },
    );
    return host;
  }
}
