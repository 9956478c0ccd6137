/** A message outside a thread and a DM gets a thread of its own, created from it (§2.5); DMs never do. */
export function shouldCreateThread(inThreadChannel: boolean, isDm: boolean): boolean {
  return !inThreadChannel && !isDm;
}
