// `npm run test:stress [-- jest arguments]`: the test suite with every CPU taken by other work, the way a busy
// shared CI runner is. `stress-ng --cpu N` (N = STRESS_CPUS, default 2: one busy loop per core of this project's
// machine) runs at normal priority beside `npm test` for the whole run and is stopped when the run ends, is
// interrupted or fails. Installs nothing: without stress-ng it says what to install and exits 2. Prints the
// suite's wall time at the end; the exit status is the suite's.
import { spawn, spawnSync } from 'node:child_process';

const cpus = process.env.STRESS_CPUS ?? '2';
if (!/^[1-9]\d{0,2}$/.test(cpus)) {
  console.error(`test:stress: STRESS_CPUS must be a whole number from 1 to 999, not ${JSON.stringify(cpus)}`);
  process.exit(2);
}
if (spawnSync('stress-ng', ['--version'], { stdio: 'ignore' }).error) {
  console.error('test:stress: stress-ng is not installed (Debian: apt-get install stress-ng); nothing was run');
  process.exit(2);
}

// Its own process group, so one signal ends the workers it forks too.
const stress = spawn('stress-ng', ['--cpu', cpus, '--timeout', '4h', '--quiet'], { stdio: 'ignore', detached: true });
const stopStress = () => {
  try {
    process.kill(-stress.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
};
process.on('exit', stopStress);

const started = Date.now();
console.log(`test:stress: stress-ng --cpu ${cpus} beside npm test`);
const suite = spawn('npm', ['test', '--', ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    suite.kill(signal);
    stopStress();
  });
}
suite.on('exit', (code, signal) => {
  stopStress();
  console.log(
    `test:stress: the suite took ${Math.round((Date.now() - started) / 1000)} s under stress-ng --cpu ${cpus}`,
  );
  process.exit(code ?? (signal ? 1 : 0));
});
