const ENTITIES: Readonly<Record<string, string>> = { "&lt;": "<", "&gt;": ">", "&amp;": "&" };
const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/**
 * A message's text as the person typed it: Slack escapes `<`, `>` and `&` in event text (`&lt;`,
 * `&gt;`, `&amp;`, its only entities), and the agent should read `a < b && c`, not the escapes.
 * One pass, so `&amp;lt;` is `&lt;`, as typed. Slack's own markup (`<@U…>`, `<https://…|label>`)
 * uses real angle brackets and is left as it is. (The reference is silent here; upstream passes the
 * escapes through.)
 */
export function unescapeSlackText(text: string): string {
  return text.replace(/&(?:lt|gt|amp);/g, (entity) => ENTITIES[entity] ?? entity);
}

/**
 * A text to be shown as written: `&`, `<` and `>` as Slack's entities, its escaping rule for text it
 * is not to read as markup, so `<@U…>` or `<!channel>` shows as those characters and notifies
 * nobody, `<url|label>` is no link, and a typed `&lt;` stays `&lt;`. Slack decodes the three for
 * display; `unescapeSlackText` reads them back.
 */
export function escapeSlackText(text: string): string {
  return text.replace(/[&<>]/g, (char) => ESCAPES[char] ?? char);
}
