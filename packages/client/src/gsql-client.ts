import { Agent, type Dispatcher } from 'undici';
import { TigerGraphError } from './errors.js';
import { sendHttp, type HttpAnswer } from './http.js';
import { cleanGsqlOutput } from './parse-gsql-output.js';
import { basicAuth, trim } from './token-requests.js';
import type { AdminCredentials } from './types.js';
import { capabilitiesOf } from './capabilities.js';

export interface GsqlClientOptions {
  /** Admin server base, e.g. http://host:14240. */
  gsqlUrl: string;
  version: string;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

export interface GsqlClient {
  readonly gsqlUrl: string;
  /** Runs GSQL statements as `creds`; resolves with the output text, control lines removed. */
  runGsql(creds: AdminCredentials, text: string): Promise<string>;
  /** One JSON call to the admin server's REST API (4.x), with basic auth. */
  callJson(
    creds: AdminCredentials,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<HttpAnswer>;
  close(): Promise<void>;
}

export function createGsqlClient(opts: GsqlClientOptions): GsqlClient {
  const ownAgent = opts.dispatcher === undefined ? new Agent() : undefined;
  const dispatcher = opts.dispatcher ?? (ownAgent as Agent);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const base = trim(opts.gsqlUrl);
  const is4x = capabilitiesOf(opts.version).gsqlStatements === 'v1';

  // 3.x takes the statements form-encoded, the way the GSQL shell's file mode sends them.
  const viaFile = (creds: AdminCredentials, text: string): Promise<HttpAnswer> =>
    sendHttp(
      dispatcher,
      {
        method: 'POST',
        url: `${base}/gsqlserver/gsql/file`,
        headers: {
          authorization: basicAuth(creds.username, creds.password),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: encodeURIComponent(text).replace(/%20/g, '+'),
      },
      timeoutMs,
    );

  const viaStatements = (creds: AdminCredentials, text: string): Promise<HttpAnswer> =>
    sendHttp(
      dispatcher,
      {
        method: 'POST',
        url: `${base}/gsql/v1/statements`,
        headers: {
          authorization: basicAuth(creds.username, creds.password),
          'content-type': 'text/plain; charset=utf-8',
        },
        body: text,
      },
      timeoutMs,
    );

  return {
    gsqlUrl: base,
    async runGsql(creds, text) {
      let answer = is4x ? await viaStatements(creds, text) : await viaFile(creds, text);
      // Some 4.x builds do not serve /gsql/v1/statements; the 3.x endpoint is still proxied there.
      if (is4x && answer.status === 404) answer = await viaFile(creds, text);
      checkStatus(answer, creds.username, 'GSQL statement');
      if (answer.status >= 400) {
        throw new TigerGraphError('protocol', `GSQL statement failed on the admin server (HTTP ${answer.status})`, {
          status: answer.status,
        });
      }
      return cleanGsqlOutput(answer.text).text;
    },
    async callJson(creds, method, path, body) {
      const headers: Record<string, string> = { authorization: basicAuth(creds.username, creds.password) };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const answer = await sendHttp(
        dispatcher,
        {
          method,
          url: `${base}${path}`,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        },
        timeoutMs,
      );
      checkStatus(answer, creds.username, `${method} ${path.split('?')[0] ?? path}`);
      return answer;
    },
    close: async () => {
      await ownAgent?.close();
    },
  };
}

/** Bad admin credentials are a 401 on every GSQL endpoint; the password never enters the message. */
function checkStatus(answer: HttpAnswer, username: string, what: string): void {
  if (answer.status === 401 || answer.status === 403) {
    throw new TigerGraphError(
      'invalid_credentials',
      `${what} refused for user ${username}: wrong username/password or no privilege`,
      {
        status: answer.status,
      },
    );
  }
  if (answer.status >= 500) {
    throw new TigerGraphError('protocol', `${what} failed on the admin server (HTTP ${answer.status})`, {
      status: answer.status,
    });
  }
}
