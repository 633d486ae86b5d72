import { TigerGraphError, transportErrorCode } from '@tigergraph-bff/client';
import type { FaultLog } from './fault-log.js';

/** What the service depends on, each named by the setting that points at it. */
export const DEPENDENCIES = ['redis', 'tigergraph', 'tigergraph_admin', 'idp'] as const;
export type Dependency = (typeof DEPENDENCIES)[number];

/** Where a dependency is and which settings an operator changes to fix it; never a credential. */
export interface DependencyTarget {
  /** How a sentence names it: "Redis", "TigerGraph's data server (RESTPP)". */
  name: string;
  /** host:port (or several, comma-separated), or a URL's origin: what was tried. */
  address: string;
  /** The setting that names the address. */
  setting: string;
  /** The setting that names the CA its TLS certificate is checked against. */
  caSetting?: string;
  /** The settings of its credentials, when it has some the service sends (Redis). */
  authSettings?: string;
  /** The setting of its version, when the service speaks to it by version (TigerGraph: TG_VERSION). */
  versionSetting?: string;
}

/** How a call to a dependency failed, by the error's code: each has a log code `<dependency>_<kind>`. */
export const FAULT_KINDS = ['refused', 'timeout', 'dns', 'tls', 'unreachable', 'auth', 'protocol'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

const BY_CODE: ReadonlyMap<string, FaultKind> = new Map([
  ['ECONNREFUSED', 'refused'],
  ['ETIMEDOUT', 'timeout'],
  ['ESOCKETTIMEDOUT', 'timeout'],
  ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
  ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
  ['UND_ERR_BODY_TIMEOUT', 'timeout'],
  ['OAUTH_TIMEOUT', 'timeout'],
  ['ENOTFOUND', 'dns'],
  ['EAI_AGAIN', 'dns'],
  ['EAI_FAIL', 'dns'],
  ['EAI_NONAME', 'dns'],
  ['EHOSTUNREACH', 'unreachable'],
  ['ENETUNREACH', 'unreachable'],
  ['EHOSTDOWN', 'unreachable'],
  ['ECONNRESET', 'unreachable'],
  ['EPIPE', 'unreachable'],
  ['ECONNABORTED', 'unreachable'],
  ['EADDRNOTAVAIL', 'unreachable'],
  ['UND_ERR_SOCKET', 'unreachable'],
  ['UND_ERR_CLOSED', 'unreachable'],
  ['EPROTO', 'tls'],
  ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
  ['SELF_SIGNED_CERT_IN_CHAIN', 'tls'],
  ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls'],
  ['UNABLE_TO_GET_ISSUER_CERT', 'tls'],
  ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'tls'],
  ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
  ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'protocol'],
  ['UND_ERR_INFO', 'protocol'],
]);

/** Redis answers a refused AUTH with an error reply whose first word is its code (the protocol's, not prose). */
const REDIS_AUTH_REPLIES = /^(WRONGPASS|NOAUTH|NOPERM)\b/;
/** ioredis's one failure without a code that is not a consequence of another: a command unanswered in time. */
const TIMED_OUT = /^Command timed out/;

/**
 * The kind of an expected fault, by its code (the error's, its cause's, or the first of an AggregateError's),
 * or undefined for an error that is not one: a bug, logged with its stack.
 */
export function faultKindOf(err: unknown): FaultKind | undefined {
  const code = transportErrorCode(err);
  if (code !== undefined) {
    const known = BY_CODE.get(code);
    if (known !== undefined) return known;
    if (code.startsWith('CERT_') || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return 'tls';
    if (code.startsWith('HPE_')) return 'protocol';
  }
  // The client library's own verdicts: its deadline (an abort, no code of its own), and an answer it could not
  // use (a TigerGraph of another version, or not TigerGraph at all).
  if (err instanceof TigerGraphError) {
    if (err.kind === 'timeout') return 'timeout';
    if (err.kind === 'protocol') return 'protocol';
    if (err.kind === 'unreachable') return 'unreachable';
  }
  const message = typeof (err as { message?: unknown })?.message === 'string' ? (err as Error).message : '';
  if (REDIS_AUTH_REPLIES.test(message)) return 'auth';
  if (TIMED_OUT.test(message)) return 'timeout';
  return undefined;
}

/** What a fault is, for a log line and for /readyz: the code, the setting, a reason and a hint. */
export interface DescribedFault {
  fault: string;
  kind: FaultKind;
  setting: string;
  reason: string;
  hint: string;
  /** The error's own code, when it has one (ECONNREFUSED, CERT_HAS_EXPIRED…). */
  code?: string;
}

const REASONS: Record<FaultKind, string> = {
  refused: 'connection refused',
  timeout: 'no answer in time',
  dns: 'host name not found',
  tls: 'TLS handshake failed',
  unreachable: 'network unreachable or connection dropped',
  auth: 'credentials refused',
  protocol: 'answered, but not in the protocol expected',
};

function hintOf(target: DependencyTarget, kind: FaultKind): string {
  const { name, address, setting } = target;
  switch (kind) {
    case 'refused':
      return `nothing accepts connections at ${address}: check that ${name} runs there and that ${setting} names its host and port`;
    case 'timeout':
      return `${address} did not answer in time: a firewall that drops packets, a wrong host in ${setting}, or ${name} overloaded`;
    case 'dns':
      return `the host name in ${setting} does not resolve: check its spelling and this machine's DNS`;
    case 'tls':
      return (
        `check that ${setting} uses the right scheme for that port (https/rediss only where it speaks TLS) and that the ` +
        `certificate names the host` +
        (target.caSetting ? `; a private CA goes in ${target.caSetting}` : '')
      );
    case 'unreachable':
      return `no route to ${address}, or the connection was cut: check the network between this service and ${name}`;
    case 'auth':
      return `${name} refused the credentials: check ${target.authSettings ?? setting}`;
    case 'protocol':
      return (
        `something answers at ${address}, but not as ${name} would: check that ${setting} names ${name} and not ` +
        `another service` +
        (target.versionSetting ? `, and that ${target.versionSetting} is the version it runs` : '')
      );
  }
}

export function describeFault(
  dependency: Dependency,
  target: DependencyTarget,
  err: unknown,
  fallback?: FaultKind,
): DescribedFault | undefined {
  const kind = faultKindOf(err) ?? fallback;
  if (kind === undefined) return undefined;
  const code = transportErrorCode(err);
  const setting =
    kind === 'tls' && target.caSetting
      ? `${target.setting}, ${target.caSetting}`
      : kind === 'auth' && target.authSettings
        ? target.authSettings
        : target.setting;
  return {
    fault: `${dependency}_${kind}`,
    kind,
    setting,
    reason: REASONS[kind],
    hint: hintOf(target, kind),
    ...(code !== undefined && { code }),
  };
}

export interface DependencyFaults {
  /**
   * Logs a failed call to a dependency as one fault line (rate limited per cause) when the failure is an
   * expected one; false when it is not (the caller logs it as a bug, stack and all).
   */
  report(dependency: Dependency, err: unknown, context?: FaultContext): boolean;
  /**
   * The fields of a fault line for this failure (code, address, setting, hint), remembered as the dependency's
   * latest fault, for a caller that writes its own line (once per outage); undefined when it is not expected.
   */
  note(dependency: Dependency, err: unknown): FaultFields | undefined;
  /** The latest expected fault of a dependency since it last answered, for /readyz. */
  latest(dependency: Dependency): DescribedFault | undefined;
  /** The dependency answered: its latest fault is forgotten. */
  answered(dependency: Dependency): void;
}

/** What the caller knows beside the error: the request it failed (for correlation), a kind its own code implies. */
export interface FaultContext {
  requestId?: string | undefined;
  /** The kind when the error's code does not tell it (the relay's own deadline aborts the call: a timeout). */
  kind?: FaultKind;
}

/** What a fault line says about a dependency's failure; never a credential. */
export type FaultFields = Record<string, string> & { fault: string; address: string; setting: string; hint: string };

/**
 * The one place that turns a failed call to Redis, TigerGraph or the IdP into "what was tried, what failed,
 * which setting to change": every log line of such a fault, and /readyz's details, come from here.
 */
export function dependencyFaults(
  faults: FaultLog,
  targets: Partial<Record<Dependency, DependencyTarget>>,
): DependencyFaults {
  const latest = new Map<Dependency, DescribedFault>();
  const noted = (dependency: Dependency, err: unknown, fallback?: FaultKind) => {
    const target = targets[dependency];
    if (target === undefined) return undefined;
    // A failure with no cause of its own (ioredis's "Connection is closed." while Redis is down) counts
    // under the fault that closed the connection, when there is one.
    const described = describeFault(dependency, target, err, fallback) ?? latest.get(dependency);
    if (described === undefined) return undefined;
    latest.set(dependency, described);
    const fields: FaultFields = {
      fault: described.fault,
      dependency,
      address: target.address,
      setting: described.setting,
      hint: described.hint,
      ...(described.code !== undefined && { code: described.code }),
    };
    const message = `${target.name} at ${target.address} (${described.setting}): ${described.reason}${described.code ? ` (${described.code})` : ''}`;
    return { fields, message };
  };
  return {
    report(dependency, err, context = {}) {
      const found = noted(dependency, err, context.kind);
      if (found === undefined) return false;
      const { fault, ...fields } = found.fields;
      faults.report({
        fault,
        key: `${fault} ${fields.code ?? ''}`,
        message: found.message,
        // The request id is the latest one of the cause's interval: its access line has the same code.
        fields: { ...fields, ...(context.requestId !== undefined && { requestId: context.requestId }) },
        err,
      });
      return true;
    },
    note: (dependency, err) => noted(dependency, err)?.fields,
    latest: (dependency) => latest.get(dependency),
    answered(dependency) {
      latest.delete(dependency);
    },
  };
}

/** host:port of a URL, without its credentials or path: what a fault line may say about where it went. */
export function addressOf(url: string): string {
  try {
    const parsed = new URL(url);
    const port =
      parsed.port || { 'http:': '80', 'https:': '443', 'redis:': '6379', 'rediss:': '6379' }[parsed.protocol];
    return `${parsed.hostname}${port ? `:${port}` : ''}`;
  } catch {
    return '(unparsable URL)';
  }
}
