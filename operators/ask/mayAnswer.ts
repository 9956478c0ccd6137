/** `[agent] permission_answerers`: who may answer a question asked in the chat. */
export type Answerers = "requester" | "allowed_users";

/**
 * Whether `senderId` may answer a question of a turn `requesterId` started: under `requester`
 * only that person (a turn nobody started — a cron job's, a webhook's — has no one); under
 * `allowed_users` anyone the edge's trust gate let through, which every event reaching a worker is.
 */
export function mayAnswer(senderId: string, requesterId: string | undefined, answerers: Answerers): boolean {
  if (answerers === "allowed_users") return true;
  return requesterId !== undefined && senderId === requesterId;
}
