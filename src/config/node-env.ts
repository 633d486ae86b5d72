import { Invalid } from './fields.js';

export const NODE_ENVS = ['development', 'production', 'test'] as const;

/**
 * Exactly one of NODE_ENVS. `Production` or `prod` used to start as development (the in-process
 * simulator, memory store, generated keys) while reading as production to whoever set it; libraries
 * compare `process.env.NODE_ENV === 'production'` byte for byte too, so no other spelling is taken.
 */
export function nodeEnv(raw: string): (typeof NODE_ENVS)[number] {
  const found = NODE_ENVS.find((v) => v === raw);
  if (found === undefined)
    throw new Invalid(
      raw.trim() !== raw
        ? `must be one of ${NODE_ENVS.join(', ')} with no spaces around it (libraries read the value as it is)`
        : `must be one of ${NODE_ENVS.join(', ')} (exactly, lower case)`,
    );
  return found;
}
