#!/usr/bin/env node
import { runCli } from "./cli.js";

// A bug, not bad input (bad input is handled where it arrives): say so loudly and exit non-zero.
process.on("uncaughtException", (err) => {
  process.stderr.write(`turnstream: fatal: ${err.stack ?? String(err)}\n`);
  process.exit(1);
});
process.on("unhandledRejection", (reason) => {
  process.stderr.write(`turnstream: fatal: unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}\n`);
  process.exit(1);
});

const shutdownRequested = (): Promise<string> =>
  new Promise((resolve) => {
    let asked = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (asked) {
        process.stderr.write(`turnstream: ${signal} again, exiting without waiting\n`);
        process.exit(1);
      }
      asked = true;
      resolve(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });

const exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  shutdownRequested,
});
process.exitCode = exitCode;
