import { describe, expect, it } from '@jest/globals';
import { CONFIG_KEYS } from '../../../src/config.js';
import { nearMisses } from '../../../src/config/near-miss.js';

describe('near misses of setting names', () => {
  it('when a name differs from a setting by case or a small misspelling, then the setting it resembles is named', () => {
    expect(
      nearMisses(
        ['TRUST_PROXI', 'ALLOWED_ORIGIN', 'allowed_origins', 'Redis_Url', 'SESION_SECRET', 'metrics_port'],
        CONFIG_KEYS,
      ),
    ).toEqual([
      { name: 'TRUST_PROXI', setting: 'TRUST_PROXY' },
      { name: 'ALLOWED_ORIGIN', setting: 'ALLOWED_ORIGINS' },
      { name: 'allowed_origins', setting: 'ALLOWED_ORIGINS' },
      { name: 'Redis_Url', setting: 'REDIS_URL' },
      { name: 'SESION_SECRET', setting: 'SESSION_SECRET' },
      { name: 'metrics_port', setting: 'METRICS_PORT' },
    ]);
  });

  it('when two neighbouring letters are swapped, or one doubled or dropped, then it is one edit', () => {
    expect(nearMisses(['REDIS_ULR', 'SESSOIN_SECRET', 'REDIS_URLL', 'REDS_URL', 'TRSUT_PROXY'], CONFIG_KEYS)).toEqual([
      { name: 'REDIS_ULR', setting: 'REDIS_URL' },
      { name: 'SESSOIN_SECRET', setting: 'SESSION_SECRET' },
      { name: 'REDIS_URLL', setting: 'REDIS_URL' },
      { name: 'REDS_URL', setting: 'REDIS_URL' },
      { name: 'TRSUT_PROXY', setting: 'TRUST_PROXY' },
    ]);
  });

  it('when a name is a setting, or far from every setting, or read by the CLI, then nothing is said', () => {
    expect(
      nearMisses(
        [
          'TRUST_PROXY',
          'PATH',
          'HOME',
          'HOSTNAME',
          'PWD',
          'SHELL',
          'TERM',
          'LANG',
          'USER',
          'NODE_OPTIONS',
          'TG_PASSWORD',
          'TG_TOKEN',
          'TG_GRAPH',
        ],
        CONFIG_KEYS,
      ),
    ).toEqual([]);
  });

  it('when a short setting is misspelt, then only a difference of case counts (HOME is not HOST)', () => {
    expect(nearMisses(['HOME', 'PORTS', 'port', 'host'], CONFIG_KEYS)).toEqual([
      { name: 'port', setting: 'PORT' },
      { name: 'host', setting: 'HOST' },
    ]);
  });

  it('when the environment of this machine is checked, then it holds no false alarm', () => {
    const settings = new Set<string>(CONFIG_KEYS);
    const foreign = Object.keys(process.env).filter(
      (name) => !settings.has(name) && !/^(TG|TGBFF|REDIS|SESSION|OIDC)_/i.test(name),
    );
    expect(nearMisses(foreign, CONFIG_KEYS)).toEqual([]);
  });
});
