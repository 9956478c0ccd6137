import type { SlackContext, WebMethod } from "./slackContext.js";

/** `auth.test` (who the bot is) and `apps.connections.open` (a Socket Mode URL, for the app-level token). */
export function authMethods(context: SlackContext, socketRoot: () => string): WebMethod[] {
  const { workspace, bot } = context;
  return [
    {
      name: "auth.test",
      token: "bot",
      json: true,
      scope: () => undefined,
      handle: () => ({
        url: `https://${workspace.team.domain}.slack.com/`,
        team: workspace.team.name,
        user: bot.user.name,
        team_id: workspace.team.id,
        user_id: bot.user.id,
        bot_id: bot.botId,
        is_enterprise_install: false,
      }),
    },
    {
      name: "apps.connections.open",
      token: "app",
      json: true,
      postOnly: true,
      scope: () => undefined,
      handle: () => ({ url: `${socketRoot()}/link/?ticket=${context.socket.issueTicket()}&app_id=${bot.appId}` }),
    },
  ];
}
