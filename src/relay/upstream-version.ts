import { request, type Dispatcher } from 'undici';
import { parseVersion } from '@tigergraph-bff/client';
import type { DependencyFaults } from '../observability/dependency-faults.js';
import type { Logger } from '../observability/logger.js';

/**
 * What the data server says about its version without a token: `GET /version` answers its text ("TigerGraph
 * version: 4.1.0") where authentication is off; where it is on, the refusal's body tells 4.x (its error bodies
 * open with a `version` object) from 3.x (docs/tigergraph-wire.md §5).
 */
export interface ReportedVersion {
  /** The exact version, when /version answered. */
  version?: string;
  /** The major line, when only the error body's shape tells it. */
  line?: '3.x' | '4.x';
}

/** The version from /version's text, or the line from a refusal's shape; empty when neither says. */
export function reportedVersionOf(status: number, body: string): ReportedVersion {
  const exact = /TigerGraph version:\s*v?(\d+\.\d+(?:\.\d+)?)/.exec(body);
  if (status === 200 && exact) return { version: exact[1]! };
  if (status === 401 || status === 403)
    return /^\s*\{\s*"version"\s*:\s*\{/.test(body) ? { line: '4.x' } : { line: '3.x' };
  return {};
}

/** How the configured TG_VERSION and what TigerGraph reports disagree, as one sentence; null when they agree. */
export function versionDisagreement(configured: string, reported: ReportedVersion): string | null {
  const mine = parseVersion(configured);
  if (reported.version !== undefined) {
    const theirs = parseVersion(reported.version);
    if (theirs.major === mine.major && theirs.minor === mine.minor) return null;
    return `TigerGraph reports ${reported.version}, TG_VERSION is ${configured}`;
  }
  if (reported.line === undefined) return null;
  const theirs4 = reported.line === '4.x';
  if (theirs4 === mine.major >= 4) return null;
  return `TigerGraph answers in the ${reported.line} format, TG_VERSION is ${configured}`;
}

/** The log code (and /readyz detail) of a TG_VERSION that disagrees with TigerGraph. */
export const VERSION_MISMATCH = 'tg_version_mismatch';

/** What the start-up probe found: reachable or not, the version reported, and a disagreement with TG_VERSION. */
export interface StartupProbe {
  reachable: boolean;
  reported: ReportedVersion;
  /** Set when TG_VERSION disagrees with what TigerGraph says. */
  disagreement: string | null;
}

/**
 * One probe of the data server at start (issue 43): logs whether it is reachable and the version it reports,
 * and warns when TG_VERSION disagrees (token calls are made in the configured version's way, so a wrong one
 * makes every login fail). An unreachable server is a fault line naming TG_RESTPP_URL. Never throws.
 */
export async function probeAtStart(deps: {
  dispatcher: Dispatcher;
  restppUrl: string;
  configuredVersion: string;
  logger: Logger;
  faults: DependencyFaults;
  timeoutMs?: number;
  /** Aborted when the service closes before the probe answered. */
  signal?: AbortSignal;
}): Promise<StartupProbe> {
  const { logger, restppUrl } = deps;
  const url = new URL(restppUrl);
  const address = url.origin;
  const timeoutMs = deps.timeoutMs ?? 5000;
  let status: number;
  let body: string;
  try {
    const res = await request(`${url.origin}${url.pathname.replace(/\/$/, '')}/version`, {
      dispatcher: deps.dispatcher,
      method: 'GET',
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      ...(deps.signal && { signal: deps.signal }),
    });
    status = res.statusCode;
    body = (await res.body.text()).slice(0, 4096);
  } catch (err) {
    if (deps.signal?.aborted === true) return { reachable: false, reported: {}, disagreement: null };
    if (!deps.faults.report('tigergraph', err))
      logger.warn({ err, address, setting: 'TG_RESTPP_URL' }, 'TigerGraph probe at start-up failed');
    return { reachable: false, reported: {}, disagreement: null };
  }
  deps.faults.answered('tigergraph');
  const reported = reportedVersionOf(status, body);
  const disagreement = versionDisagreement(deps.configuredVersion, reported);
  logger.info(
    {
      address,
      setting: 'TG_RESTPP_URL',
      status,
      configuredVersion: deps.configuredVersion,
      ...(reported.version !== undefined && { reportedVersion: reported.version }),
      ...(reported.line !== undefined && { reportedLine: reported.line }),
    },
    `TigerGraph reachable at ${address}` +
      (reported.version !== undefined
        ? `, version ${reported.version}`
        : reported.line !== undefined
          ? ` (answers in the ${reported.line} format; its version needs a token)`
          : ''),
  );
  if (disagreement !== null) {
    const suggestion = reported.version ?? (reported.line === '4.x' ? '4.1.0' : '3.9.3');
    logger.warn(
      {
        fault: VERSION_MISMATCH,
        setting: 'TG_VERSION',
        configuredVersion: deps.configuredVersion,
        ...(reported.version !== undefined && { reportedVersion: reported.version }),
        ...(reported.line !== undefined && { reportedLine: reported.line }),
        address,
        hint: `tokens are asked for in TG_VERSION's way, so logins will fail: set TG_VERSION to TigerGraph's version (e.g. TG_VERSION=${suggestion})`,
      },
      `${disagreement}: set TG_VERSION to the version TigerGraph runs`,
    );
  }
  return { reachable: true, reported, disagreement };
}
