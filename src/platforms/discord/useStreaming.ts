/**
 * OpenAB streams a Discord reply (a `…` message edited as it grows) unless another bot is known in
 * the thread: two bots editing messages in one thread read each other's half-written text.
 */
export function useStreaming(otherBotPresent: boolean): boolean {
  return !otherBotPresent;
}
