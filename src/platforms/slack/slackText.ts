const ENTITIES: Readonly<Record<string, string>> = { "&lt;": "<", "&gt;": ">", "&amp;": "&" };

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
