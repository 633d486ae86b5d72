import { z } from 'zod';
import { isName, NAME_MAX_LENGTH, SECRET_MAX_LENGTH } from '@tigergraph-bff/client';

/**
 * The fields request schemas are built from. Each message completes "field: …" and never contains the
 * value, which may be a secret or a password.
 */
const typed = (kind: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${kind}`),
});

/** A JSON object whose fields are exactly the ones listed: an unknown field is refused, not ignored. */
export const exactly = <T extends z.core.$ZodLooseShape>(shape: T) => z.strictObject(shape, typed('a JSON object'));

export const text = (max: number) =>
  z.string(typed('a string')).min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

export const secret = text(SECRET_MAX_LENGTH);

const GRAPH = `must be a graph name (letters, digits or _, not starting with a digit, at most ${NAME_MAX_LENGTH})`;
const ALIAS = `must be a secret alias (letters, digits or _, not starting with a digit, at most ${NAME_MAX_LENGTH})`;

export const graphName = z.string({ error: GRAPH }).refine(isName, { error: GRAPH });
export const aliasName = z.string({ error: ALIAS }).refine(isName, { error: ALIAS });

/** Login bodies: a graph is optional, and null says "none" as plainly as leaving it out. */
export const loginGraph = graphName
  .nullable()
  .optional()
  .transform((g) => g ?? null);

/** Admin bodies and query strings: an empty value (`?graph=`) also means "none". */
export const optionalName = (name: typeof graphName) =>
  z.preprocess((v) => (v === '' || v === null ? undefined : v), name.optional());
