/**
 * Light entry of the core module: the part of its contract that start-up paths (the command line
 * before a command runs) need, loading no zod. Everything here is also exported by index.ts.
 */
export { SentinelError, type ErrorCode, type ErrorSubject, type SentinelErrorOptions } from './errors.ts';
export { closestNames, didYouMean } from './suggest.ts';
export { sentinelCommand } from './command-name.ts';
