export { createTestScheduler, type DeepEqualExpect } from "./marbles.js";
