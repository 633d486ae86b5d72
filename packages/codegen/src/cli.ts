#!/usr/bin/env node
// `tgbff-codegen` (run it as `npx @tigergraph-bff/codegen …`, or from a package.json script): a graph's
// installed queries as a TypeScript module of typed functions for @tigergraph-bff/browser.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { readConfig } from './config-file.js';
import { CodegenError, Exit, usage } from './errors.js';
import { generateQueryModule, type EndpointListing } from './query-module.js';
import { isGraphName, readFromDataServer, readThroughService, serviceUrl } from './read-listing.js';

const HELP = `Usage: tgbff-codegen --graph NAME [--out FILE] [--service URL | --restpp-url URL] [options]
       npx @tigergraph-bff/codegen --graph NAME …   (the package's one bin)

Writes a TypeScript module with one typed function per installed query of a graph, calling
@tigergraph-bff/browser. Reads GET /endpoints/<graph>?dynamic=true:
  through a running tigergraph-bff (--service URL): logs in with the secret from TG_SECRET or standard
    input, reads the listing over the relay, logs out;
  or straight from TigerGraph's data server (--restpp-url URL, or TG_RESTPP_URL) with a token
    (--token, or TG_TOKEN).

Options:
  --graph NAME        the graph whose installed queries to read
  --out FILE          write the module here (default: standard output)
  --service URL       a running tigergraph-bff (plain http only to localhost)
  --restpp-url URL    TigerGraph's data server (RESTPP)
  --token TOKEN       a token for --restpp-url (TG_TOKEN keeps it out of ps)
  --config FILE       a JSON config (default ./tgbff-codegen.json when present): graph, service,
                      restppUrl, out, and "results": { "<query>": "<TypeScript row type>" },
                      "imports": ["import type { Person } from './model.js';"]
  --async             also a <query>Async function per query: the query started in Detached Mode
                      (GSQL-ASYNC), answering its request id (config: "async": true)
  --timeout-ms MS     how long each call may take (default 30000)
  --verbose           say where the listing came from and what was skipped (on standard error)
  --version           print the version
  --help              print this

Exit codes: 0 done, 1 other, 2 usage, 3 refused credentials, 6 unreachable, 7 graph not found or no queries.
`;

const MAX_SECRET_BYTES = 4096;

/** The secret from TG_SECRET, else piped standard input (never a flag: it would show in ps). */
async function readSecret(): Promise<{ secret: string; source: string }> {
  const env = process.env.TG_SECRET?.trim();
  if (env) return { secret: env, source: 'TG_SECRET' };
  if (process.stdin.isTTY) throw usage('no secret: set TG_SECRET, or pipe it on standard input');
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    bytes += chunk.byteLength;
    if (bytes > MAX_SECRET_BYTES) throw usage('standard input is longer than a secret');
    chunks.push(chunk);
  }
  const secret = Buffer.concat(chunks).toString('utf8').trim();
  if (!secret) throw usage('no secret: set TG_SECRET, or pipe it on standard input');
  return { secret, source: 'standard input' };
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        graph: { type: 'string' },
        out: { type: 'string' },
        service: { type: 'string' },
        'restpp-url': { type: 'string' },
        token: { type: 'string' },
        config: { type: 'string' },
        'timeout-ms': { type: 'string' },
        verbose: { type: 'boolean' },
        async: { type: 'boolean' },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw usage(`${(err as Error).message} (see --help)`);
  }
  if (values.help) {
    process.stdout.write(HELP);
    return Exit.ok;
  }
  if (values.version) {
    process.stdout.write(`${version()}\n`);
    return Exit.ok;
  }
  const info = (line: string) => values.verbose && process.stderr.write(`${line}\n`);
  const config = values.config ? await readConfig(values.config) : await readConfig('tgbff-codegen.json', true);
  const graph = values.graph ?? config?.graph ?? '';
  if (!isGraphName(graph)) throw usage(`--graph must name a graph (letters, digits, _), got '${graph}'`);
  const timeoutMs = Number(values['timeout-ms'] ?? 30_000);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 600_000)
    throw usage(`--timeout-ms must be a whole number of milliseconds up to 600000, got '${values['timeout-ms']}'`);
  const service = values.service ?? (values['restpp-url'] ? undefined : config?.service);
  let listing: EndpointListing;
  let from: string;
  if (service) {
    const base = serviceUrl(service);
    const { secret, source } = await readSecret();
    info(`service ${base}, secret from ${source}`);
    listing = await readThroughService(base, graph, secret, timeoutMs, { info });
    from = `${base} (GET /api/endpoints/${graph}?dynamic=true)`;
  } else {
    const restpp = values['restpp-url'] ?? process.env.TG_RESTPP_URL ?? config?.restppUrl;
    const token = values.token ?? process.env.TG_TOKEN?.trim();
    if (!restpp || !token)
      throw usage(
        'no way to read the listing: pass --service URL, or --restpp-url URL with a token (--token or TG_TOKEN)',
      );
    info(`data server ${restpp}`);
    listing = await readFromDataServer(restpp, graph, token, timeoutMs);
    from = `GET /endpoints/${graph}?dynamic=true`;
  }
  let module;
  try {
    module = generateQueryModule(graph, listing, from, {
      results: config?.results,
      imports: config?.imports,
      async: values.async ?? config?.async,
    });
  } catch (err) {
    if (err instanceof TypeError) throw usage(`config: ${err.message}`);
    throw err;
  }
  for (const reason of module.skipped) info(`skipped ${reason}`);
  if (module.queries.length === 0)
    throw new CodegenError(Exit.graphNotFound, 'no_queries', `graph ${graph} lists no installed queries`);
  const out = values.out ?? config?.out;
  if (!out) {
    process.stdout.write(module.text);
    return Exit.ok;
  }
  await writeFile(out, module.text);
  process.stdout.write(`wrote ${out}: ${module.queries.map((q) => `${q.name} (${q.method})`).join(', ')}\n`);
  return Exit.ok;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof CodegenError) {
      process.stderr.write(`tgbff-codegen: ${err.message}\n`);
      process.exitCode = err.exitCode;
    } else {
      process.stderr.write(`tgbff-codegen: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = Exit.other;
    }
  },
);
