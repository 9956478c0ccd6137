/** Every attempt to store a conversation's triage state lost a race to another writer. */
export class TriageConflictError extends Error {
  override readonly name = "TriageConflictError";
  constructor(
    readonly key: string,
    readonly attempts: number,
  ) {
    super(`triage state of ${key} changed under every one of ${attempts} attempts`);
  }
}
