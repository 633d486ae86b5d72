#!/usr/bin/env node
import { homedir } from 'node:os';
import { runCli } from './run.js';

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
