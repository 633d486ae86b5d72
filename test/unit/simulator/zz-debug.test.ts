import { it } from '@jest/globals';
import { loadExternalJwtVerifier, parseRsaKeys } from '../../../src/simulator/external-jwt.js';
import { mintJwt, rsaKeys, times } from '../../helpers/jwt-mint.js';
it('dbg', async () => {
  const k = rsaKeys('k1');
  console.log(parseRsaKeys(k.jwks).map((x) => [x.kid, x.alg]));
  const v = await loadExternalJwtVerifier({ rsaPublicKey: k.jwks });
  const t = mintJwt({ alg: 'RS384', key: k.privateKey, kid: 'k1' }, { sub: 'x', ...times(300) });
  console.log(JSON.parse(Buffer.from(t.split('.')[0]!, 'base64url').toString()), v.verify(t, Math.floor(Date.now() / 1000)));
});
