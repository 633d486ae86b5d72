import { compact, resolveUrls, triple } from '../../../packages/client/src/connection-options.js';

describe('resolveUrls', () => {
  test('when nothing is given on 3.x, then the data server is 127.0.0.1:9000 and the admin server :14240', () => {
    expect(resolveUrls({ version: '3.9.3' })).toEqual({
      restppUrl: 'http://127.0.0.1:9000',
      gsqlUrl: 'http://127.0.0.1:14240',
    });
  });

  test('when the version is 4.1+, then the data server is the admin port under /restpp', () => {
    expect(resolveUrls({ version: '4.1.0', host: 'https://tg.example/', gsPort: 443 })).toEqual({
      restppUrl: 'https://tg.example:443/restpp',
      gsqlUrl: 'https://tg.example:443',
    });
  });

  test('when the host has no scheme and ports are given, then http is assumed and the ports used', () => {
    expect(resolveUrls({ version: '3.4.0', host: 'db', restppPort: 19000, gsPort: 24240 })).toEqual({
      restppUrl: 'http://db:19000',
      gsqlUrl: 'http://db:24240',
    });
  });

  test('when URLs are given, then they win over host and ports', () => {
    const urls = { restppUrl: 'http://a:1', gsqlUrl: 'http://b:2' };
    expect(resolveUrls({ version: '3.9.3', host: 'ignored', ...urls })).toEqual(urls);
  });
});

describe('triple and compact', () => {
  test('when a grant becomes the seed triple, then the ISO string has an explicit zone and matches the epoch', () => {
    const [token, epoch, iso] = triple({ token: 't', expiresAt: 1616042814 });
    expect([token, epoch, iso]).toEqual(['t', 1616042814, '2021-03-18T04:46:54.000Z']);
    expect(Date.parse(iso) / 1000).toBe(epoch);
  });

  test('when query options are partly undefined, then only the given ones are sent', () => {
    expect(compact({ limit: 2, select: undefined, filter: 'age>30' })).toEqual({ limit: 2, filter: 'age>30' });
  });
});
