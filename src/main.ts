#!/usr/bin/env node
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { destination as pinoDestination } from 'pino';
import { ConfigError, CONFIG_KEYS, loadConfig, type Config } from './config.js';
import { EnvFileError, loadEnvFileIfPresent } from './config/env-file.js';
import { nearMisses, nearMissHints } from './config/near-miss.js';
import { closeConnectionsWhenDone } from './http/server/drain-connections.js';
import { boundAddress, browserUrl, listen, startBanner } from './http/server/listen.js';
import { createLogger, type Logger } from './observability/logger.js';
import { createMetrics } from './observability/metrics.js';
import { createAudit } from './observability/audit.js';
import { installSafetyNet } from './observability/safety-net.js';
import { createService, type Upstream } from './service.js';
import type { SimulatorHandle } from './simulator/index.js';

/**
 * The composition root: config → upstream (or the in-process simulator) → service → listen, and a
 * graceful shutdown on SIGTERM/SIGINT (a second signal exits at once).
 */
async function main(): Promise<void> {
  let config: Config;
  const envFile = path.resolve('.env');
  let envFileRead: boolean;
  try {
    envFileRead = loadEnvFileIfPresent(envFile, (file) => process.loadEnvFile(file));
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      const hints = nearMissHints(
        // The refused setting, and any setting its message names (a Redis mode is one of three).
        err.issues.flatMap(({ key, message }) => [
          key,
          ...CONFIG_KEYS.filter((setting) => new RegExp(`\\b${setting}\\b`).test(message)),
        ]),
        nearMisses(Object.keys(process.env), CONFIG_KEYS),
      );
      failToStart([err.message, ...hints].join('\n'));
    }
    if (err instanceof EnvFileError) failToStart(err.message);
    throw err;
  }
  const logger = createLogger({
    level: config.logLevel,
    ...(config.logFlushMs > 0 && { buffered: { flushMs: config.logFlushMs } }),
  });
  const metrics = createMetrics();
  const audit = createAudit(config.auditLogFile !== undefined ? { file: config.auditLogFile } : {});
  installSafetyNet(process, logger, metrics);
  if (envFileRead)
    logger.info({ file: envFile }, 'read settings from .env; variables already in the environment kept their values');
  warnAboutDefaults(config, logger);
  // Names only, never values: a misspelt setting is otherwise ignored without a word.
  for (const { name, setting } of nearMisses(Object.keys(process.env), CONFIG_KEYS)) {
    logger.warn(
      { variable: name, setting },
      `environment variable ${name} is not a setting and is ignored: did you mean ${setting}?`,
    );
  }

  let simulator: SimulatorHandle | undefined;
  let demoSecret: string | undefined;
  let upstream: Upstream;
  if (config.simulator) {
    // Imported only when used: a service with a real TigerGraph never loads the simulator's modules,
    // which would otherwise stay in its heap (and be marked by every full GC) for nothing.
    const { startSimulator } = await import('./simulator/index.js');
    simulator = await startSimulator({ version: config.tigergraph.version });
    upstream = { restppUrl: simulator.restppUrl, gsqlUrl: simulator.gsqlUrl, version: simulator.version };
    demoSecret = simulator.createSecret({ alias: 'tgbff_demo' }).value;
    logger.warn(
      { restppUrl: simulator.restppUrl, gsqlUrl: simulator.gsqlUrl },
      'no TG_RESTPP_URL: running the TigerGraph simulator in-process',
    );
  } else {
    upstream = {
      restppUrl: config.tigergraph.restppUrl as string,
      ...(config.tigergraph.gsqlUrl && { gsqlUrl: config.tigergraph.gsqlUrl }),
      version: config.tigergraph.version,
    };
  }

  const service = await createService({ config, upstream, logger, metrics, audit });
  // Which settings were given, by name: never a value (some are secrets).
  audit.emit({
    event: 'config.loaded',
    settings: CONFIG_KEYS.filter((key) => (process.env[key] ?? '').trim() !== ''),
    tracing: config.tracing !== null,
    audit: config.auditLogFile !== undefined ? 'file' : 'stdout',
  });
  // A client that sends its headers or body slowly loses the request (408) instead of holding a socket
  // and a slot: Node checks these every connectionsCheckingInterval, so that is kept short too.
  const server: Server = createServer(
    {
      headersTimeout: config.clientTimeouts.headersMs,
      requestTimeout: config.clientTimeouts.requestMs,
      connectionsCheckingInterval: Math.min(1000, config.clientTimeouts.headersMs),
    },
    service.app,
  );
  server.keepAliveTimeout = 65_000; // longer than common load balancer idle timeouts
  let stopping = false;
  closeConnectionsWhenDone(server, () => stopping);
  // Metrics get their own listener, unpublished, so the public port has no /metrics in any spelling.
  const metricsServer = config.metrics.port === null ? undefined : createServer(service.metricsApp);
  const metricsPort =
    metricsServer && (await listen(metricsServer, config.metrics.port ?? 0, config.metrics.host, 'METRICS_PORT'));
  const port = await listen(server, config.port, config.host, 'PORT');
  logger.flush();
  // Before the 'listening' line, so whoever waits for that line has the banner too. Not in production,
  // where every line is JSON (and a localhost URL means nothing to whoever reads the logs).
  if (!config.production) process.stdout.write(startBanner(browserUrl(config.host, port), demoSecret));
  logger.info(
    {
      address: boundAddress(server),
      port,
      host: config.host,
      ...(metricsServer && {
        metricsAddress: boundAddress(metricsServer),
        metricsPort,
        metricsHost: config.metrics.host,
      }),
      upstream: upstream.restppUrl,
      redis: config.redis.mode,
    },
    'listening',
  );
  logger.flush(); // lines are batched (LOG_FLUSH_MS); this one should not wait

  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'shutting down');
    service.drain();
    const deadline = setTimeout(() => {
      logger.warn('shutdown deadline reached; closing remaining connections');
      server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    deadline.unref();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    clearTimeout(deadline);
    // Last: a scrape during the drain still sees the final counts.
    metricsServer?.closeAllConnections();
    metricsServer?.close();
    await service.close();
    audit.flush?.();
    await simulator?.close();
    logger.info('stopped');
    logger.flush?.();
    process.exit(0);
  };
  process.on('SIGTERM', (s) => void shutdown(s));
  process.on('SIGINT', (s) => void shutdown(s));
}

function warnAboutDefaults(config: Config, logger: Logger): void {
  if (config.redis.mode === 'memory') {
    logger.warn('no Redis configured: using the embedded memory store (one instance only; sessions vanish on restart)');
  }
  if (config.generated.length > 0) {
    logger.warn(
      { keys: config.generated },
      'generated random values for unset keys; sessions will not survive a restart',
    );
  }
  if (!config.session.cookieSecure) logger.warn('COOKIE_SECURE=false: the session cookie is sent over plain http');
}

/**
 * The last words of a start that failed, on stderr: a JSON line in production (every line the service
 * writes there is JSON; the config may not even have loaded, so NODE_ENV is read as it is), plain text
 * for a developer otherwise.
 */
function failToStart(message: string): never {
  if (process.env.NODE_ENV === 'production') {
    createLogger({ destination: pinoDestination({ dest: 2, sync: true }) }).fatal(message);
  } else {
    process.stderr.write(`tigergraph-bff: ${message}\n`);
  }
  process.exit(1);
}

main().catch((err: unknown) => failToStart(`failed to start: ${err instanceof Error ? err.message : String(err)}`));
