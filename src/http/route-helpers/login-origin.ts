import type { IncomingMessage } from 'node:http';
import { addressKeyer, UNPARSABLE_ADDRESS } from '../pipeline/address-key.js';
import { contextOf } from '../pipeline/context.js';

/** The longest client description kept: a family and an OS, never the raw header. */
export const CLIENT_MAX = 48;

// Order matters: Edge and Opera say Chrome too, Chrome says Safari, iOS browsers name themselves apart.
const BROWSERS: Array<[RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\b(?:Chrome|CriOS|Chromium)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
];
const SYSTEMS: Array<[RegExp, string]> = [
  [/\bWindows\b/, 'Windows'],
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\b(?:Macintosh|Mac OS X)\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

/**
 * A short browser and OS description ("Firefox on Linux") from a User-Agent, for a person's session list:
 * only names from the tables above, or for anything else (a script, a CLI) its first product token reduced to
 * letters, digits, `.`, `_` and `-`, so what is stored and shown is bounded and never the raw header. A full
 * parser's device database would buy nothing this list needs.
 */
export function describeClient(userAgent: string | undefined): string | undefined {
  if (userAgent === undefined) return undefined;
  const ua = userAgent.slice(0, 512);
  const browser = BROWSERS.find(([re]) => re.test(ua))?.[1];
  const system = SYSTEMS.find(([re]) => re.test(ua))?.[1];
  const product = browser ?? /^[A-Za-z][\w.-]{0,23}/.exec(ua.trim())?.[0];
  if (product === undefined) return system;
  return (system === undefined ? product : `${product} on ${system}`).slice(0, CLIENT_MAX);
}

const toSlash48 = addressKeyer(48);

/** A client address coarsened for showing: IPv4 to its /24, IPv6 to its /48 (mapped IPv4 counts as IPv4). */
export function coarseAddress(address: string | undefined): string | undefined {
  const key = toSlash48(address);
  if (key === UNPARSABLE_ADDRESS) return undefined;
  if (key.includes('/')) return key;
  const octets = key.split('.');
  return `${octets.slice(0, 3).join('.')}.0/24`;
}

/** Where a login came from, as the person's session list shows it. */
export function loginOrigin(req: IncomingMessage): { client?: string; address?: string } {
  const client = describeClient(req.headers['user-agent']);
  const address = coarseAddress(contextOf(req)?.forwarded.clientIp);
  return { ...(client !== undefined && { client }), ...(address !== undefined && { address }) };
}
