#!/usr/bin/env node
import { runSimulatorCli } from './cli-run.js';

const result = await runSimulatorCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});

if (typeof result === 'number') {
  process.exitCode = result;
} else {
  let stopping = false;
  const stop = (): void => {
    if (stopping) process.exit(1); // a second signal: do not wait
    stopping = true;
    result.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
