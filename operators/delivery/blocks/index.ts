// Blocks: a streamed reply cut into paced messages at natural breaks.
// The public surface of delivery/blocks/: everything else in the folder is internal.
export { BlockChunker, type BlockChunkerSettings, type FenceSplit } from "./blockChunker.js";
export type { BreakPreference } from "./preferredBreak.js";
export { textBlocks, type BlockBreak, type TextBlocksOptions, type TextBlockStep } from "./textBlocks.js";
export { coalesceBlocks, coalesceJoiner, type BlockJoiner, type CoalesceOptions } from "./coalesceBlocks.js";
export { humanDelayRange, humanGap, type HumanDelay } from "./humanDelay.js";
