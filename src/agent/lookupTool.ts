import { z } from "zod";
import type { ChatTool } from "./replyTool.js";

export const LOOKUP_TOOL_NAME = "lookup";

/** Topic → canned answer. The reference agent's only non-reply tool: a stand-in for real work. */
export type LookupTable = Readonly<Record<string, string>>;

/** Used unless `TURNSTREAM_AGENT_LOOKUP` supplies a table. */
export const builtInLookupTable: LookupTable = {
  flight: "Flight TS 123 to Lisbon: departure moved to 20:00, gate B12.",
  weather: "Lisbon tomorrow: 24 °C, clear skies.",
  hotel: "Hotel Miradouro: booking confirmed for 2 nights, check-in from 15:00.",
};

const lookupInput = z.strictObject({ query: z.string().describe("What to look up, e.g. a topic word.") });

/** The `lookup` tool as a chat-completions `tools[]` entry. */
export function lookupTool(table: LookupTable): ChatTool {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(lookupInput) as Record<string, unknown>;
  const topics = Object.keys(table).join(", ");
  return {
    type: "function",
    function: { name: LOOKUP_TOOL_NAME, description: `Look up a fact in a small table (topics: ${topics}).`, parameters },
  };
}

/**
 * Runs a `lookup` call: the answer of the first topic the query mentions (case-insensitive), or
 * a short note the model can act on. Never throws: a bad input is reported back to the model.
 */
export function runLookup(argumentsText: string, table: LookupTable): string {
  let query: string;
  try {
    query = lookupInput.parse(JSON.parse(argumentsText)).query;
  } catch {
    return 'lookup needs {"query": "<topic>"}';
  }
  const wanted = query.toLowerCase();
  const topic = Object.keys(table).find((key) => wanted.includes(key.toLowerCase()));
  return topic === undefined ? `nothing found for ${JSON.stringify(query)}; known topics: ${Object.keys(table).join(", ")}` : (table[topic] ?? "");
}
