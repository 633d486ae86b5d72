// How much CPU a service start costs: `node scripts/start-cpu.mjs [dist/main.js]` starts the entry with the
// in-memory store and an upstream URL (no simulator), reads the child's user + system time from
// /proc/<pid>/stat at its "listening" line, prints it in ms, and kills the child. Linux only. Run under a
// whole-process timer (e.g. /usr/bin/time) to count the child's exit as well.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';

const entry = resolve(process.argv[2] ?? 'dist/main.js');
const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux this runs on
const child = spawn(process.execPath, ['--heap-growing-percent=100', entry], {
  cwd: tmpdir(),
  env: {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: '0',
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    TG_RESTPP_URL: 'http://127.0.0.1:9',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
child.stdout.on('data', (chunk) => {
  out += chunk;
  if (!out.includes('"msg":"listening"')) return;
  child.stdout.removeAllListeners('data');
  // Fields 14 and 15 (utime, stime) follow the command name, which sits in parentheses.
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  console.log(`${entry}: ${(ticks * 1000) / TICKS_PER_SECOND} ms CPU to "listening"`);
  child.kill('SIGKILL');
});
child.on('exit', (code, signal) => {
  if (signal !== 'SIGKILL') {
    console.error(`exited (${code ?? signal}) before listening:\n${out}`);
    process.exitCode = 1;
  }
});
