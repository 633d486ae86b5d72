// Child-process tests (multi-instance, CLI, shutdown) run the compiled service, so build it once first
// (scripts/build.mjs: into a fresh directory, then swapped in for dist/).
import { execFileSync } from 'node:child_process';

export default function globalSetup() {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}
