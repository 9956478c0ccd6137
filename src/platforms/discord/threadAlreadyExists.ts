/**
 * Whether a thread-creation failure is Discord's "one thread per message" race (code 160004, `A
 * thread has already been created for this message.`): another bot answering the same message
 * opened it first, and this bot joins that thread (OpenAB's `is_thread_already_exists`).
 */
export function isThreadAlreadyExists(errorText: string): boolean {
  return errorText.includes("160004") || errorText.includes("already been created");
}
