/**
 * OpenAB's config sections turnstream does not take, each with what to do instead, so an OpenAB
 * deployment's file gets a line that helps rather than a bare `unknown key`. The names are
 * OpenAB's config reference's (docs/openab-config-keys.json keeps the whole list; every other
 * section of it is turnstream's too).
 */
const GATEWAY_HINT =
  "turnstream speaks Telegram, Discord and Slack itself ([telegram], [discord], [slack]) and reaches other chat platforms through an OpenAB gateway: run the gateway for this platform and point [gateway] url at it (docs/migrating-from-openab.md)";

export const OPENAB_SECTIONS: Readonly<Record<string, string>> = {
  line: `is an OpenAB platform adapter; ${GATEWAY_HINT}`,
  whatsapp: `is an OpenAB platform adapter; ${GATEWAY_HINT}`,
  feishu: `is an OpenAB platform adapter; ${GATEWAY_HINT}`,
  googlechat: `is an OpenAB platform adapter; ${GATEWAY_HINT}`,
  teams: `is an OpenAB platform adapter; ${GATEWAY_HINT}`,
  markdown: "(OpenAB's Markdown table conversion) is not supported: replies keep their tables as written (remove [markdown])",
};
