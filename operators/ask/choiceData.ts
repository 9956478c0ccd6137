/**
 * A button's data (`OutboundChoice.data`): `q:<ask id>:<option>` — the question it answers and
 * the option's index from 0, or `q:<ask id>:done` for a multi-select question's submit button.
 * Short enough for Telegram's 64-byte `callback_data`.
 */
export function choiceData(askId: string, option: number | "done"): string {
  return `q:${askId}:${option}`;
}

/** What a tap's data names, or `undefined` for data the broker never puts on a button (taps are untrusted). */
export function parseChoiceData(data: string): { readonly askId: string; readonly option: number | "done" } | undefined {
  const match = /^q:([a-z0-9]{1,24}):(done|\d{1,2})$/.exec(data);
  if (match === null) return undefined;
  const [, askId, option] = match as unknown as [string, string, string];
  return { askId, option: option === "done" ? "done" : Number(option) };
}
