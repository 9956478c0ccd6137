import type { Fence } from "./breakScan.js";

/** What a block continuing `fence` opens with: its opener line, else the bare marker, else nothing fits. */
export function reopenLine(fence: Fence, maxChars: number): string | undefined {
  const bare = closeLine(fence);
  if (bare.length * 2 + 3 > maxChars) return undefined;
  return fence.openLine.length + bare.length + 3 <= maxChars ? fence.openLine : bare;
}

/** What closes `fence` in a block cut inside it: its indent and marker. */
export function closeLine(fence: Fence): string {
  return fence.indent + fence.marker;
}
