import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { someGuild, TOKEN as DISCORD_TOKEN, useFakeDiscord } from "../fakes/discord/fakeDiscordFixture.js";
import { someConversations, useFakeSlack } from "../fakes/slack/slackFixture.js";
import { scriptedAgentPath } from "../helpers/agents.js";
import { runTurnstream, spawnLogged, type LoggedProcess } from "../helpers/cli.js";
import { until } from "../helpers/stack.js";

// Issue 39's acceptance: an OpenAB deployment's [discord] and [slack] drop in. The config below is
// upstream's README example (docs/discord.md and docs/slack.md say the same), its ids made the
// fakes' ones and `api_root` added only because a test never reaches discord.com or slack.com;
// the tokens come from the environment through ${VAR}, as upstream's Helm chart passes them.

const discord = useFakeDiscord();
const slack = useFakeSlack();
const dir = mkdtempSync(join(tmpdir(), "turnstream-openab-chats-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let running: LoggedProcess | undefined;
afterEach(async () => {
  running?.child.kill("SIGKILL");
  await running?.exited;
  running = undefined;
});

/** The secret part of each token: what must never be printed. */
const secrets = () => [DISCORD_TOKEN.split(".")[2]!, slack.fake.botToken.slice("xoxb-".length), slack.fake.appToken.slice("xapp-".length)];
const env = () => ({ HOME: dir, LOG_LEVEL: "debug", DISCORD_BOT_TOKEN: DISCORD_TOKEN, SLACK_BOT_TOKEN: slack.fake.botToken, SLACK_APP_TOKEN: slack.fake.appToken });

function upstreamConfig(discordChannel: string, slackChannel: string): string {
  const file = join(dir, "config.toml");
  writeFileSync(
    file,
    `[discord]
bot_token = "\${DISCORD_BOT_TOKEN}"   # supports env var expansion
allowed_channels = ["${discordChannel}"]      # channel ID allowlist
# allowed_users = ["987654321"]       # user ID allowlist (empty = all users)
api_root = "${discord.fake.api}"

[slack]
bot_token = "\${SLACK_BOT_TOKEN}"     # Bot User OAuth Token (xoxb-...)
app_token = "\${SLACK_APP_TOKEN}"     # App-Level Token (xapp-...) for Socket Mode
allowed_channels = ["${slackChannel}"]   # channel ID allowlist (empty = allow all)
# allowed_users = ["U0123456789"]    # user ID allowlist (empty = allow all)
api_root = "${slack.fake.apiUrl}"

[agent]
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(scriptedAgentPath)}]
`,
  );
  return file;
}

describe("turnstream run with OpenAB's [discord] and [slack]", () => {
  it("upstream's example passes check-config, tokens masked, and runs: a mention on each platform is answered in its thread, no token printed", async () => {
    const guild = someGuild(discord.fake);
    const workspace = someConversations(slack.fake);
    const file = upstreamConfig(guild.general.id, workspace.general.id);
    const checked = await runTurnstream(["check-config", file], { env: env() });
    expect(checked).toMatchObject({ code: 0, stderr: "" });
    expect(checked.stdout).toMatch(/\[discord\]\nbot_token = "\*\*\*"\n/);
    expect(checked.stdout).toMatch(/\[slack\]\nbot_token = "\*\*\*"\napp_token = "\*\*\*"\n/);
    for (const secret of secrets()) expect(checked.stdout).not.toContain(secret);

    running = spawnLogged(["run", "--config", file], { env: env(), cwd: dir });
    expect(await until(() => running!.logs.some((l) => l.msg === "discord bot connected") && running!.logs.some((l) => l.msg === "slack socket connected"), 20_000)).toBe(true);
    const trigger = discord.fake.from(guild.alice).message(guild.general.id, `<@${discord.fake.bot.id}> prose`);
    const said = slack.fake.from(workspace.alice).message(workspace.general.id, "@turnstream prose");
    expect(await until(() => discord.fake.botTexts(trigger.id)[0] === "hey what's up" && slack.fake.botTexts(workspace.general.id, { thread: said.ts })[0] === "hey what's up", 20_000)).toBe(true);
    // A channel off the list is not answered.
    discord.fake.from(guild.alice).message(guild.readOnly.id, `<@${discord.fake.bot.id}> prose`);
    expect(await until(() => running!.logs.some((l) => l.msg === "discord message skipped" && l.reason === "channel_not_allowed"), 10_000)).toBe(true);
    running.child.kill("SIGTERM");
    expect(await running.exited).toEqual({ code: 0, signal: null });
    const printed = JSON.stringify(running.logs) + running.stderr();
    for (const secret of secrets()) expect(printed).not.toContain(secret);
    expect(discord.fake.threads(guild.readOnly.id)).toEqual([]);
  });

  it("a token Discord refuses stops run with one line naming the key, a non-zero exit, the token nowhere", async () => {
    const guild = someGuild(discord.fake);
    const workspace = someConversations(slack.fake);
    discord.fake.revokeToken();
    running = spawnLogged(["run", "--config", upstreamConfig(guild.general.id, workspace.general.id)], { env: env(), cwd: dir });
    const exited = await running.exited;
    expect(exited.code).not.toBe(0);
    expect(running.stderr()).toMatch(/^turnstream: discord\.bot_token: .+\n$/);
    const printed = JSON.stringify(running.logs) + running.stderr();
    for (const secret of secrets()) expect(printed).not.toContain(secret);
  });
});
