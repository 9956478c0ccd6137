import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/log/logger.js";
import { LevelsWritten } from "../../src/log/levelsWritten.js";

describe("LevelsWritten", () => {
  it("says which levels the logger writes, and follows a change of its level until closed", () => {
    const logger = createLogger({ level: "silent" });
    const levels = new LevelsWritten(logger);
    expect({ debug: levels.debug, info: levels.info, error: levels.error }).toEqual({ debug: false, info: false, error: false });
    logger.level = "info";
    expect({ debug: levels.debug, info: levels.info, error: levels.error }).toEqual({ debug: false, info: true, error: true });
    logger.level = "debug";
    expect(levels.debug).toBe(true);
    levels.close();
    logger.level = "error";
    expect(levels.info).toBe(true); // no longer followed
    expect(logger.listenerCount("level-change")).toBe(0);
  });
});
