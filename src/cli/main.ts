#!/usr/bin/env node
import { homedir } from 'node:os';
import path from 'node:path';
import { EnvFileError, loadEnvFileIfPresent } from '../config/env-file.js';
import { usageError } from './cli-error.js';
import { createOutput } from './output.js';
import { runCli } from './run.js';

// The same .env the service reads (TG_RESTPP_URL, TG_GSQL_URL, …); variables already set win.
try {
  loadEnvFileIfPresent(path.resolve('.env'), (file) => process.loadEnvFile(file));
} catch (err) {
  if (!(err instanceof EnvFileError)) throw err;
  const json = process.argv.includes('--json') && process.argv[2] !== 'sim';
  const failure = usageError(err.message);
  createOutput({ json, stdout: process.stdout, stderr: process.stderr }).error(failure);
  process.exit(failure.exitCode);
}

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
