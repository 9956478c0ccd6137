/** A `timezone` that is not an IANA name chrono-tz knows, spelled exactly (`isCronTimezone`). */
export class CronTimezoneError extends Error {
  override readonly name = "CronTimezoneError";
  constructor(
    readonly timezone: string,
    options?: ErrorOptions,
  ) {
    super("unknown timezone: expected an IANA name such as \"Europe/Berlin\", spelled exactly", options);
  }
}
