/**
 * The CI scripts keep their order on a fresh machine: .ci/install brings every tool first, no other script
 * installs anything or looks for a tool before that, and under CI a check never skips. A machine on which
 * an earlier run had installed the tools hides a wrong order (a BuildKit client resolved before docker.io
 * was installed passed for weeks), so the order is read from the scripts here, and .ci/extra is run with
 * the tools taken off its PATH.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const read = (name: string) => readFileSync(join('.ci', name), 'utf8');
/** Lines without comments (a `#` at the start or after whitespace; `$#` and `${#x[@]}` stay). */
const codeLines = (text: string) => text.split('\n').map((line) => line.replace(/(^|\s)#.*$/, ''));

/** The tools .ci/install brings: the `tool:package` entries of its TOOLS list. */
function installedTools(): string[] {
  const list = /TOOLS=\(\n([\s\S]*?)\n\)/.exec(read('install'));
  if (!list) throw new Error('.ci/install has no TOOLS=( … ) list');
  return [...list[1]!.matchAll(/^\s*"([^":]+):[^"]+"/gm)].map((m) => m[1]!);
}

/** Tools a fresh machine of this kind lacks (or has only in a form CI must not use). */
const FRESH_MACHINE_LACKS = [
  'docker-compose',
  'dockerd',
  '/usr/bin/docker',
  'mmdebstrap',
  'nginx',
  'chromium',
  'firefox-esr',
  'kubectl',
  'redis-server',
  'redis-cli',
  'openssl',
  'curl',
];

/** Whether a line calls (or resolves) the tool as a command word, not as part of a longer name. */
function usesTool(line: string, tool: string): boolean {
  const escaped = tool.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  return new RegExp(`(^|[\\s;&|(!"'\`=])${escaped}($|[\\s;&|)"'\`])`).test(line);
}

describe('the CI scripts, read', () => {
  const tools = installedTools();

  it('when .ci/install lists its tools, then every tool a fresh machine lacks is among them', () => {
    expect(FRESH_MACHINE_LACKS.filter((tool) => !tools.includes(tool))).toEqual([]);
  });

  it('when .ci/run starts, then the install step comes before any tool or other CI script is used', () => {
    const lines = codeLines(read('run'));
    const install = lines.findIndex((line) => /\bbash \.ci\/install\b/.test(line));
    expect(install).toBeGreaterThan(-1);
    const early = lines
      .slice(0, install)
      .flatMap((line, i) => [
        ...tools.filter((tool) => usesTool(line, tool)).map((tool) => `line ${i + 1}: ${tool}`),
        ...(/\.ci\/(extra|containers)|npm (ci|test|run)/.test(line) ? [`line ${i + 1}: ${line.trim()}`] : []),
      ]);
    expect(early).toEqual([]);
  });

  it('when a CI script other than .ci/install runs, then it installs nothing', () => {
    for (const name of ['run', 'extra', 'containers']) {
      const installing = codeLines(read(name)).filter((line) =>
        /\bapt(-get)?\b|\bapt_install\b|\bdpkg -i\b/.test(line),
      );
      expect({ name, installing }).toEqual({ name, installing: [] });
    }
  });

  it('when .ci/extra and .ci/containers call a tool a fresh machine lacks, then .ci/install brings it', () => {
    for (const name of ['extra', 'containers']) {
      const lines = codeLines(read(name));
      const used = FRESH_MACHINE_LACKS.filter((tool) => lines.some((line) => usesTool(line, tool)));
      expect({ name, notInstalled: used.filter((tool) => !tools.includes(tool)) }).toEqual({ name, notInstalled: [] });
    }
  });

  it('when .ci/containers starts, then no tool is resolved before its engine step', () => {
    const lines = codeLines(read('containers'));
    const engine = lines.findIndex((line) => /^step "engine"/.test(line));
    expect(engine).toBeGreaterThan(-1);
    // Before the engine step only functions are defined and plain values set: a `command -v`, an
    // executable test or a literal tool path there is the resolved-too-early bug.
    const early = lines
      .slice(0, engine)
      .map((line, i) => ({ line: line.trim(), at: i + 1 }))
      .filter(({ line }) => /command -v|\[ -x |\/usr\/(local\/)?bin\//.test(line));
    expect(early).toEqual([]);
  });

  it('when .ci/extra may skip a check, then it does so only through skip(), which fails under CI', () => {
    const lines = codeLines(read('extra'));
    expect(lines.filter((line) => /echo "skip:/.test(line) && !/^\s*if \[ "\$\{CI:-\}" = true \]/.test(line))).toEqual(
      [],
    );
  });
});

describe('.ci/extra on a machine without its tools', () => {
  // A PATH with the shell utilities the script needs and none of the tools .ci/install brings.
  const UTILITIES = [
    'bash',
    'sed',
    'grep',
    'awk',
    'head',
    'tail',
    'cat',
    'mktemp',
    'rm',
    'env',
    'tr',
    'dirname',
    'wc',
    'sort',
  ];
  const run = (ci: string | undefined) => {
    const bin = mkdtempSync(join(tmpdir(), 'tgbff-ci-path-'));
    try {
      for (const name of UTILITIES) {
        const found = spawnSync('bash', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
        if (found) symlinkSync(found, join(bin, name));
      }
      const env: Record<string, string> = { PATH: bin, HOME: tmpdir() };
      if (ci !== undefined) env.CI = ci;
      return spawnSync(join(bin, 'bash'), ['.ci/extra'], { encoding: 'utf8', env });
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  };

  it('when CI=true, then each check that cannot run fails, naming the missing tool', () => {
    const { status, stdout } = run('true');
    expect(status).not.toBe(0);
    expect(stdout).not.toMatch(/^skip:/m);
    expect(stdout).toMatch(/^FAIL: CI=true and compose validation cannot run: .*docker-compose/m);
    expect(stdout).toMatch(/^FAIL: CI=true and nginx config syntax check cannot run: nginx openssl not on PATH/m);
  });

  it('when not under CI, then the same checks skip with a line and the script passes', () => {
    const { status, stdout } = run(undefined);
    expect(stdout).toMatch(/^skip: compose validation/m);
    expect(stdout).toMatch(/^skip: nginx config syntax check/m);
    expect(status).toBe(0);
  });
});
