import { parseVersionMessage } from '../../../packages/client/src/data-client.js';

describe('parseVersionMessage', () => {
  test('when GET /version lists components, then the product release is the version', () => {
    const message =
      'TigerGraph RESTPP:\n --- Version ---\nTigerGraph version: 3.9.3\nproduct  release_3.9.3_09-12-2023 0d9d0a3  2023-09-12 10:00:00 -0700\ngle  release_3.9.3_09-12-2023 abc  2023-09-12 10:00:00 -0700\n';
    expect(parseVersionMessage(message)).toBe('3.9.3');
  });

  test('when there is no version in the text, then the result is undefined', () => {
    expect(parseVersionMessage('nothing here')).toBeUndefined();
  });
});
