import { describe, expect, test } from '@jest/globals';
import { addressKeyer, UNPARSABLE_ADDRESS } from '../../../src/http/pipeline/address-key.js';

describe('client address keys', () => {
  const key = addressKeyer();

  test('when one IPv6 address is spelt every way, then it has one key: its /64', () => {
    const spellings = [
      '2001:db8::1',
      '2001:DB8::1',
      '2001:db8:0:0:0:0:0:1',
      '2001:0db8:0000::0001',
      '[2001:db8::1]',
      '[2001:db8::1]:443',
      '2001:db8::1%eth0',
      ' 2001:db8::1 ',
    ];
    expect(new Set(spellings.map(key))).toEqual(new Set(['2001:db8::/64']));
  });

  test('when addresses share a /64, then they share a key; the next /64 is another', () => {
    expect(key('2001:db8:0:7:aaaa:bbbb:cccc:dddd')).toBe(key('2001:db8:0:7::1'));
    expect(key('2001:db8:0:8::1')).not.toBe(key('2001:db8:0:7::1'));
  });

  test('when an IPv4 address arrives as IPv4-mapped IPv6 or with a port, then it is that IPv4 address', () => {
    for (const spelling of ['192.0.2.1', '::ffff:192.0.2.1', '::FFFF:c000:201', '[::ffff:192.0.2.1]', '192.0.2.1:8080'])
      expect(key(spelling)).toBe('192.0.2.1');
    expect(key('192.0.2.2')).toBe('192.0.2.2');
  });

  test('when the prefix is set, then IPv6 groups by it', () => {
    expect(addressKeyer(48)('2001:db8:1:2::1')).toBe('2001:db8:1::/48');
    expect(addressKeyer(56)('2001:db8:1:2ff::1')).toBe('2001:db8:1:200::/56');
    expect(addressKeyer(128)('2001:db8::1%eth0')).toBe('2001:db8::1/128');
    expect(() => addressKeyer(0)).toThrow(RangeError);
  });

  test('when an address does not parse, then every such value shares one key (garbage is no fresh budget)', () => {
    for (const value of [undefined, '', 'unknown', 'a.b.c.d', '2001:db8::1::2', '1.2.3.4, 5.6.7.8', 'x'.repeat(5000)])
      expect(key(value)).toBe(UNPARSABLE_ADDRESS);
  });
});
