// The cron module's door: the jobs the scheduler runs, from config.toml and the usercron file.
export { type CronJob, type CronJobSource, type DisableOnSuccess, DEFAULT_DISABLE_ON_SUCCESS_TIMEOUT_SECS } from "./cronJob.js";
export { BLANK_THREAD_ID_LOG, cronJobsOf, reportBlankThreadIds } from "./cronJobs.js";
export { MAX_USERCRON_BYTES, UsercronFile, type UsercronFileOptions } from "./usercronFile.js";
export { usercronJobsOf, type UsercronDrop, type UsercronRead } from "./usercronEntries.js";
export { usercronPathOf } from "./usercronPath.js";
export { cronPlatformsOf, type CronPlatforms } from "../config/cronJobFaults.js";
