import { describe, expect, it } from '@jest/globals';
import { refusesToken } from '../../../src/relay/token-refusal.js';

const body = (code: string | undefined, message: string) =>
  Buffer.from(JSON.stringify({ error: true, message, ...(code && { code }) }));

describe('which data-server refusals are about the token itself', () => {
  it.each([
    [401, 'REST-10016', "Access Denied because the input token = 'abcd****xyz' is invalid."],
    [401, 'REST-10016', "Access Denied because the input token = '' is empty or too short"],
    [
      403,
      'REST-10016',
      "Access Denied because the input token = 'eyJh****4WgE' contains audience [a,b], which doesn't include the configured one c",
    ],
    [403, 'REST-10019', "Access Denied because the input token = 'abcd****xyz' is expired."],
    [401, 'REST-10018', 'Token rejected'],
  ])('when %i %s says "%s", then a new token may help', (status, code, message) => {
    expect(refusesToken(status, body(code, message))).toBe(true);
  });

  it.each([
    [401, 'REST-10016', "Access Denied because the input token = 'abcd****xyz' has no access to graph 'finance'."],
    [403, 'REST-10016', 'Access Denied: the user lacks the READ_DATA privilege'],
    [403, 'REST-10016', 'Access Denied: permission denied'],
    [403, 'REST-2000', 'no privilege READ_DATA'],
    [401, 'REST-1000', 'Endpoint is not found'],
  ])('when %i %s says "%s", then it is passed on and mints nothing', (status, code, message) => {
    expect(refusesToken(status, body(code, message))).toBe(false);
  });

  it('when a 401 carries no readable code, then it still counts as a token refusal (RESTPP has no other 401), and a 403 does not', () => {
    expect(refusesToken(401, Buffer.from('Unauthorized'))).toBe(true);
    expect(refusesToken(403, Buffer.from('<html>Client certificate verification failed</html>'))).toBe(false);
  });
});
