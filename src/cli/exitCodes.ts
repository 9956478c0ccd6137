/** What `turnstream` exits with: 2 for anything the user can fix (flags, config), 1 for a failure at run time. */
export const exitCodes = { ok: 0, failure: 1, usage: 2 } as const;
