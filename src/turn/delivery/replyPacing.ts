import { randomInt } from "node:crypto";
import { humanGap, type HumanDelay } from "../../../operators/delivery/blocks/humanDelay.js";
import type { Config } from "../../config/index.js";

type DeliverySection = Config["delivery"];

/** `[delivery] human_delay` as the operator reads it. */
export function humanDelayOf(setting: DeliverySection["human_delay"]): HumanDelay {
  if (setting === "off" || setting === "natural") return { mode: setting };
  return { mode: "custom", ...(setting.min_ms === undefined ? {} : { minMs: setting.min_ms }), ...(setting.max_ms === undefined ? {} : { maxMs: setting.max_ms }) };
}

/**
 * The gap before each message of a reply after the first: `floorMs` (a bubble mode's
 * `bubble_delay_ms`, 0 for blocks) or the human delay drawn for it, whichever is longer. Drawn
 * with node:crypto, as OpenClaw draws it; a fixed number when no delay is configured.
 */
export function replyGaps(delivery: Pick<DeliverySection, "human_delay">, floorMs: number): number | ((index: number) => number) {
  const human = humanDelayOf(delivery.human_delay);
  if (human.mode === "off") return floorMs;
  const gap = humanGap(human, randomInt);
  return (index) => Math.max(floorMs, gap(index));
}
