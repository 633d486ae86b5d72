import http from 'node:http';
import { CSRF } from './cluster.js';

export interface StreamOutcome {
  status: number;
  /** True when the response ended normally; false when the connection was cut mid-body. */
  complete: boolean;
  body: string;
}

export interface OpenStream {
  /** Resolves once the first body bytes arrived (the request is surely in flight on the server). */
  started: Promise<void>;
  done: Promise<StreamOutcome>;
}

/**
 * A GET read chunk by chunk, so shutdown and logout can happen mid-body. By default on its own
 * connection that closes afterwards; pass a keep-alive agent to act like a browser or a proxy.
 */
export function openStream(
  baseUrl: string,
  path: string,
  cookie: string,
  agent: http.Agent | false = false,
): OpenStream {
  let markStarted!: () => void;
  let failStart!: (err: Error) => void;
  const started = new Promise<void>((resolve, reject) => {
    markStarted = resolve;
    failStart = reject;
  });
  started.catch(() => undefined); // `done` reports the failure too
  const done = new Promise<StreamOutcome>((resolve, reject) => {
    const req = http.get(`${baseUrl}${path}`, { agent, headers: { ...CSRF, Cookie: cookie } }, (res) => {
      let body = '';
      let complete = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        markStarted();
      });
      res.on('end', () => (complete = true));
      res.on('error', () => undefined); // a cut connection; 'close' reports it as incomplete
      res.on('close', () => {
        markStarted();
        resolve({ status: res.statusCode ?? 0, complete, body });
      });
    });
    req.on('error', (err) => {
      failStart(err);
      reject(err);
    });
  });
  return { started, done };
}
