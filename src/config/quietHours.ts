// The parser is pure and belongs to triage; the config validates `quiet_hours` with the same code.
export { parseQuietHours, QuietHoursError, type QuietHours } from "../../operators/triage/quietHours.js";
