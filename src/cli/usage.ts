export const mainUsage = `turnstream — a broker between chat gateways and ACP agents that replies in deliberate beats

Usage:
  turnstream demo [--delivery structured|sequential]
  turnstream bubble-test [scenario…]
  turnstream dev-gateway [--listen HOST:PORT] [--token T]
  turnstream run [--config FILE] [--role all|edge|worker]
  turnstream check-config [--json] FILE
  turnstream agent [--base-url URL] [--model M] [--mode envelope|sequential]
  turnstream mcp
  turnstream --help | --version

Commands:
  demo           Try it: a local gateway, the broker and an offline demo agent,
                 with a terminal prompt (what "npm start" runs).
  bubble-test    Run OpenAB's bubble-test scenarios offline; PASS/FAIL per scenario.
  dev-gateway    A local gateway (WebSocket /ws, /health, a chat page, a terminal
                 prompt) for a broker started separately.
  run            Start the broker. Without --config it runs on the embedded defaults
                 (in-process bus, no gateway). Stops gracefully on SIGINT/SIGTERM.
  check-config   Validate FILE and print the resolved config with secrets masked,
                 or one line per problem.
  agent          A reference ACP agent on stdio for [agent] command: replies through
                 the reply tool of an OpenAI-compatible chat-completions model.
  mcp            The reply tool's stdio MCP server, as the broker offers it to each
                 session: agents start it themselves (not meant to be run by hand).

Exit codes: 0 ok, 1 runtime failure, 2 bad usage or bad config.
Docs: docs/config-reference.md, docs/operators.md`;

export const runUsage = `Usage: turnstream run [--config FILE] [--role all|edge|worker]

  -c, --config FILE   TOML config (OpenAB-compatible sections); defaults when omitted
      --role ROLE     all (default): edge and worker in one process;
                      edge / worker: one half, for scaling out over a NATS bus
  -h, --help          This help

Logs JSON lines to stdout (set [log] pretty = true for a terminal); LOG_LEVEL overrides [log] level.
SIGINT/SIGTERM: stop taking events, let running turns finish ([pool] shutdown_grace_secs), exit 0.`;

export const checkConfigUsage = `Usage: turnstream check-config [--json] FILE

  --json       Print the resolved config as JSON instead of TOML
  -h, --help   This help

Exit 0 and the resolved config (secrets masked) when FILE is valid; exit 2 and one line per problem otherwise.`;

export const demoUsage = `Usage: turnstream demo [--delivery structured|sequential]

  --delivery MODE   structured (default, what "npm start" runs): the agent answers each turn with
                    one envelope, its bubbles sent 400 ms apart; sequential: the agent sends each
                    bubble the moment it decides it ("slow" → three bubbles 2 s apart)
  -h, --help        This help

Starts a local gateway, the broker on the embedded bus and the bundled offline demo agent, and
reads messages from the terminal: a plain line is a user message, "/proactive <text>" an
unsolicited event, "/id <event_id> [text]" one with a fixed id. Each reply prints as a bubble
with the time since your message. Ctrl-D (end of input), SIGINT or SIGTERM stop it.`;

export const bubbleTestUsage = `Usage: turnstream bubble-test [scenario…]

Runs OpenAB's bubble-test table offline — for each scenario a dev gateway, the broker on the
embedded bus and the scripted agent — and prints what was delivered, the gaps between messages,
and PASS/FAIL against the expected row. Without arguments, every scenario:
envelope, multiline, silent, prose, broken, toolong (structured); sequential, seqslow, seqhalf
(sequential); text. Exit 1 on any FAIL.`;

export const devGatewayUsage = `Usage: turnstream dev-gateway [--listen HOST:PORT] [--token T] [--config FILE]

A local gateway speaking the OpenAB gateway protocol: brokers connect to ws://HOST:PORT/ws?token=T,
every event is broadcast to them and every send that asks for an ack is acked. Without --token (or
[dev_gateway] token) a random token is made and printed in the broker URL and the chat page URL.
Every path, GET /health included, needs the token (401 otherwise); a Host other than
127.0.0.1, localhost, [::1], the listen host or [dev_gateway] allowed_hosts, and a WebSocket from
another page's origin, get 403. Refusals are printed to stderr with a reason, never the token.
The terminal is a chat: a plain line is a user message, "/proactive <text>" an unsolicited event,
"/id <event_id> [text]" one with a fixed id. Defaults come from [dev_gateway] (listen
127.0.0.1:8765). Ctrl-D, SIGINT or SIGTERM stop it.`;

export const agentUsage = `Usage: turnstream agent [options]

A reference ACP agent speaking ACP v1 on stdin/stdout (point a broker's [agent] command at it).
Each prompt runs a tool-calling loop against an OpenAI-compatible chat-completions endpoint; the
model replies through the "reply" tool, whose input schema is the envelope.

  --base-url URL        endpoint, e.g. https://api.openai.com/v1   (TURNSTREAM_AGENT_BASE_URL, required)
  --model NAME          model name                                 (TURNSTREAM_AGENT_MODEL, required)
  --mode MODE           envelope (default): one openab.turn.v1 envelope per turn, for
                        [delivery] mode = "structured"; sequential: each reply call sent at
                        once as openab_message bubbles, for mode = "sequential"
                                                                   (TURNSTREAM_AGENT_MODE)
  --max-bubbles N       messages per turn, default 4; match [delivery] max_bubbles
                                                                   (TURNSTREAM_AGENT_MAX_BUBBLES)
  --max-bubble-chars N  envelope mode: characters per message, default 1200 (0: no limit);
                        match [delivery] max_bubble_chars  (TURNSTREAM_AGENT_MAX_BUBBLE_CHARS)
  --max-steps N         model requests per turn, default 8         (TURNSTREAM_AGENT_MAX_STEPS)
  --timeout-secs N      per model request, default 120             (TURNSTREAM_AGENT_TIMEOUT_SECS)
  --system-prompt TEXT  the agent's own instructions               (TURNSTREAM_AGENT_SYSTEM_PROMPT)
  -h, --help            this help

The API key is read from TURNSTREAM_AGENT_API_KEY only (never a flag). Also read:
TURNSTREAM_AGENT_LOOKUP (JSON table for the demo "lookup" tool), TURNSTREAM_AGENT_SCHEMA,
TURNSTREAM_AGENT_SILENT_TOKEN, TURNSTREAM_AGENT_ASK_TIMEOUT_SECS (default 900: the longest an
"ask" waits for the chat), LOG_LEVEL (default warn; logs go to stderr).
Exit 0 when stdin ends or on SIGINT/SIGTERM; 2 on bad settings. Docs: docs/agents.md`;


export const mcpUsage = `Usage: turnstream mcp

The stdio MCP server the broker offers every ACP session in structured and sequential
delivery (the reply tool). The agent starts it with the environment the broker put in the
server entry: TURNSTREAM_MCP_ENDPOINT (the broker's local socket) and TURNSTREAM_MCP_SECRET
(the session's secret). It relays MCP between its stdio and the broker, which runs the tool.`;
