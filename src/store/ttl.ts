/** PEXPIRE/PX refuse 0 and fractions; a caller's rounding should not turn into a store error. */
export const positiveMs = (ms: number): number => Math.max(1, Math.ceil(ms));
