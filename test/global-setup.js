// Child-process tests (multi-instance, CLI, shutdown) run the compiled service, so build it once first.
import { execFileSync } from 'node:child_process';

export default function globalSetup() {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
}
