import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { SimulatorOptions } from './types.js';

const schema = z
  .object({
    users: z
      .array(
        z
          .object({
            name: z.string().min(1),
            password: z.string(),
            graphs: z.array(z.string().min(1)).optional(),
            superuser: z.boolean().optional(),
          })
          .strict(),
      )
      .optional(),
    graphs: z.array(z.string().min(1)).optional(),
    secrets: z
      .array(
        z
          .object({
            user: z.string().min(1).optional(),
            graph: z.string().min(1).optional(),
            alias: z.string().min(1),
            value: z.string().min(8),
          })
          .strict(),
      )
      .optional(),
    authFailureStatus: z.union([z.literal(401), z.literal(403)]).optional(),
    jwt: z
      .object({
        hmacSecret: z.string().min(1).optional(),
        rsaPublicKey: z.string().min(1).optional(),
        issuer: z.string().min(1).optional(),
        audience: z.string().min(1).optional(),
      })
      .strict()
      .refine((j) => j.hmacSecret !== undefined || j.rsaPublicKey !== undefined, 'jwt needs hmacSecret or rsaPublicKey')
      .optional(),
  })
  .strict();

export type SimConfigFile = Pick<SimulatorOptions, 'users' | 'graphs' | 'secrets' | 'authFailureStatus' | 'jwt'>;

/** Reads the --config JSON; errors name the file and the offending field, never a value. */
export async function loadSimConfig(path: string): Promise<SimConfigFile> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read simulator config ${path}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `invalid simulator config ${path}: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}
