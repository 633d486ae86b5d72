import { loadConfig } from '../../../src/config.js';
import { configErrorOf, keysOf } from './helpers.js';

describe('config TRUST_PROXY', () => {
  it.each([
    ['true', true],
    ['FALSE', false],
    ['0', 0],
    ['3', 3],
    ['loopback', ['loopback']],
    ['10.0.0.1, 192.168.0.0/16,fd00::/8, uniquelocal', ['10.0.0.1', '192.168.0.0/16', 'fd00::/8', 'uniquelocal']],
  ])('when TRUST_PROXY is %j, then the config holds %j', (raw, expected) => {
    expect(loadConfig({ TRUST_PROXY: raw }).trustProxy).toEqual(expected);
  });

  it.each(['10.0.0.1/33', 'fd00::/129', 'proxy.local', '1.2.3.4/8/1', 'yes'])(
    'when TRUST_PROXY is %j, then it is rejected naming the key',
    (raw) => {
      expect(keysOf(configErrorOf({ TRUST_PROXY: raw }))).toEqual(['TRUST_PROXY']);
    },
  );
});
