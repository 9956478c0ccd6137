import { afterEach } from "vitest";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { slackSection, type SlackConfig } from "../../../src/config/sections/slack.js";
import { SlackPort, type SlackPortOptions } from "../../../src/platforms/slack/index.js";
import type { FakeSlack } from "../../fakes/slack/index.js";
import { captureLogs, type LogRecord } from "../../helpers/logCapture.js";

/** `[slack]` as the config resolves it, pointed at the fake: everyone and every channel allowed unless `overrides` say otherwise. */
export function slackConfig(fake: FakeSlack, overrides: Partial<SlackConfig> = {}): SlackConfig {
  return { ...slackSection.parse({ bot_token: fake.botToken, app_token: fake.appToken, api_root: fake.apiUrl }), ...overrides };
}

/** Slack ports made in a test, closed after it (register after `useFakeSlack`, so they close before the fake). */
export function useSlackPorts(fake: () => FakeSlack) {
  const ports: SlackPort[] = [];
  afterEach(async () => {
    await Promise.all(ports.splice(0).map((port) => port.close()));
  });
  return (overrides: Partial<SlackConfig> = {}, options: Partial<SlackPortOptions> = {}) => {
    const { logger, records } = captureLogs();
    const port = new SlackPort({ config: slackConfig(fake(), overrides), logger, backoff: { initialMs: 50, maxMs: 200 }, callTimeoutMs: 3000, ...options });
    ports.push(port);
    const events: GatewayEvent[] = [];
    port.events.subscribe((event) => events.push(event));
    return { port, events, records };
  };
}

/** The log records with this `msg`. */
export function logged(records: readonly LogRecord[], msg: string): LogRecord[] {
  return records.filter((record) => record.msg === msg);
}
