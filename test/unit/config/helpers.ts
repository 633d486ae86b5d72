import { ConfigError, loadConfig } from '../../../src/config.js';

/** Runs loadConfig expecting a ConfigError; returns it so tests can read its issues and message. */
export function configErrorOf(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected loadConfig to throw a ConfigError');
}

export const keysOf = (err: ConfigError): string[] => err.issues.map((i) => i.key);
