/**
 * Sentinel's error type lives in the core module (`core/errors.ts`); this file keeps the tools
 * module's own imports of it short. Other modules import it from `core/index.ts`.
 */
export {
  SentinelError,
  toSentinelError,
  type ErrorCode,
  type ErrorSubject,
  type SentinelErrorOptions,
} from '../core/index.ts';
