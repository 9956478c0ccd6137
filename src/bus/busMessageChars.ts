/**
 * The most characters a message's text may hold for its send request to fit a bus whose messages
 * are at most `maxMessageBytes` (NATS's `max_payload`): an eighth of it, since a character takes at
 * most 6 bytes in the request's JSON (an escaped control character) and a quarter stays for the
 * rest of the message and its headers. `Infinity` on a bus without such a limit.
 */
export function busMessageChars(maxMessageBytes: number | undefined): number {
  if (maxMessageBytes === undefined) return Infinity;
  return Math.max(1, Math.floor(maxMessageBytes / 8));
}
