import { expect } from '@jest/globals';
import { AppError } from '../../../src/errors.js';

/** Awaits a rejection and checks it is the AppError the public contract promises. */
export async function expectAppError(promise: Promise<unknown>, status: number, code: string): Promise<AppError> {
  const err = await promise.then(
    () => {
      throw new Error(`expected ${status} ${code}, but the call succeeded`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  const appErr = err as AppError;
  expect({ status: appErr.status, code: appErr.code }).toEqual({ status, code });
  return appErr;
}
