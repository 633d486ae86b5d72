import { isIP } from 'node:net';
import { Invalid } from './fields.js';

/** Express's `trust proxy`: a switch, a hop count, or the addresses/subnets of trusted proxies. */
export type TrustProxy = boolean | number | readonly string[];

/** The names Express (proxy-addr) understands besides addresses. */
export const TRUST_PRESETS = ['loopback', 'linklocal', 'uniquelocal'] as const;

function isAddressOrSubnet(item: string): boolean {
  if ((TRUST_PRESETS as readonly string[]).includes(item)) return true;
  const [address = '', prefix, extra] = item.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

export function trustProxy(raw: string): TrustProxy {
  const lower = raw.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0 || !items.every(isAddressOrSubnet)) {
    throw new Invalid(
      `must be true, false, a hop count, or a comma list of addresses, subnets or ${TRUST_PRESETS.join('/')}`,
    );
  }
  return items;
}
