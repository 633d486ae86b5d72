import { request } from 'undici';

export interface Answer {
  status: number;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: any;
  headers: Record<string, string | string[] | undefined>;
}

export const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

export const bearer = (token: string): string => `Bearer ${token}`;

/** One HTTP call with undici, body always consumed; used instead of the client library on purpose. */
export async function call(
  url: string,
  opts: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const res = await request(url, {
    method: (opts.method ?? 'GET') as 'GET',
    headers: opts.headers ?? {},
    ...(opts.body !== undefined && { body: opts.body }),
  });
  const text = await res.body.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, text, json, headers: res.headers };
}

/** The instant the simulator tests' manual clocks start at (test/helpers/clock.ts). */
export const SIM_EPOCH = Date.UTC(2024, 0, 15, 12, 0, 0);
