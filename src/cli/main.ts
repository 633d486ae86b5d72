#!/usr/bin/env node
import { homedir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runCli } from './run.js';

// undici parses HTTP with a WebAssembly module (llhttp). V8 compiles it twice: at once with its baseline
// compiler, then optimised on a background thread, and a process waits for that thread before it exits:
// a quarter of a second of every `tgbff token get` (1.13 -> 0.89 s, CPU 1.08 -> 0.83 s). A command sends a
// few requests; the baseline code is plenty. `serve` and `sim` stay long and keep the optimising compiler.
// The flag only takes effect for modules compiled after it is set, which is all of them here.
if (!['serve', 'sim'].includes(process.argv[2] ?? '')) setFlagsFromString('--liftoff-only');

// No .env is read here: only a file named with --dotenv (see dotenv-option.ts).
process.exitCode = await runCli({
  argv: process.argv.slice(2),
  env: process.env,
  homeDir: homedir(),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  waitForSignal: () =>
    new Promise((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    }),
});
