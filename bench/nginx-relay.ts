import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answers, childPids, cpuSeconds, freePort, peakRssMb, startChild, type Child } from './processes.js';

/** Debian's nginx (nginx-light), as the bench runs it. */
export const NGINX = process.env.BENCH_NGINX || '/usr/sbin/nginx';

/**
 * Subject (g), the C anchor: nginx as the relay, proxy_pass to the data server with one fixed bearer header
 * and upstream keep-alive, as (b) does in Node.js. One worker process, as Node.js runs JavaScript on one
 * core; no access log, as (b) writes none. Its own prefix, config and temp paths under a temporary folder
 * (nothing under /etc or /var, no root). CPU and peak RSS are the master's plus its workers'.
 */
export async function startNginxRelay(opts: {
  upstream: string;
  token: string;
  logFile: string;
  cwd: string;
}): Promise<{ url: string; child: Child }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bench-nginx-'));
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  const upstream = new URL(opts.upstream);
  // Style of deploy/nginx.conf: HTTP/1.1 upstream with keep-alive, no buffering of either direction.
  const conf = `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;

events {
  worker_connections 4096;
}

http {
  access_log off;
  server_tokens off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  # The load keeps its connections for the whole run, as it does with every other subject.
  keepalive_requests 1000000;
  keepalive_timeout 65s;

  upstream data_server {
    server ${upstream.host};
    keepalive 128;
    keepalive_requests 1000000;
  }

  server {
    listen 127.0.0.1:${port};
    location /api/ {
      proxy_pass http://data_server/;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Cookie "";
      proxy_set_header Authorization "Bearer ${opts.token}";
      proxy_buffering off;
      proxy_request_buffering off;
    }
    location / {
      return 404;
    }
  }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = await startChild({
    name: 'nginx',
    command: NGINX,
    args: ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')],
    env: { PATH: process.env.PATH ?? '' },
    cwd: opts.cwd,
    logFile: opts.logFile,
    ready: answers(`http://127.0.0.1:${port}/`),
  });
  const stop = child.stop;
  const all = () => [child.pid, ...childPids(child.pid)];
  return {
    url: `http://127.0.0.1:${port}`,
    child: {
      ...child,
      cpuSeconds: () => {
        const each = all().map(cpuSeconds);
        return each.some((s) => s === null) ? null : each.reduce<number>((n, s) => n + (s as number), 0);
      },
      // The worker's: the master only forks it and waits.
      peakRssMb: () => Math.max(...all().map((pid) => peakRssMb(pid) ?? 0)) || null,
      stop: async () => {
        await stop();
        rmSync(dir, { recursive: true, force: true });
      },
    },
  };
}
