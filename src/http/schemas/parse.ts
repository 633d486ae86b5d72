import type { z } from 'zod';
import { AppError } from '../../errors.js';

/** Where the input came from; names the problem when it is the whole input rather than one field. */
export type InputPart = 'body' | 'query' | 'path';

// An unknown key is the client's own text: echo it only when it plainly is a field name.
const ECHOABLE = /^[A-Za-z0-9_.-]{1,40}$/;

export const invalidRequest = (message: string) => new AppError('invalid_request', message);

function describe(issue: z.core.$ZodIssue, part: InputPart): string {
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    return ECHOABLE.test(key) ? `${key}: is not a known field` : `${part}: has a field that is not known`;
  }
  const field = issue.path.length === 0 ? part : issue.path.map(String).join('.');
  return `${field}: ${issue.message}`;
}

/**
 * Parses one request part against its schema. A failure is 400 invalid_request naming the first field at
 * fault ("graph: must be a graph name"); zod's own report, which may quote the input, stays out of it.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, part: InputPart): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw invalidRequest(describe(result.error.issues[0] as z.core.$ZodIssue, part));
}
