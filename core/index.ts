/**
 * Public entry of the core module: what every other module shares and none owns. The error type and
 * its wire mapping, zod errors turned into it, the one canonical JSON and digest, the cluster shape.
 * Core imports nothing from the other top-level modules.
 */
export {
  SentinelError,
  toSentinelError,
  HTTP_STATUS,
  JSON_RPC_CODE,
  type ErrorCode,
  type ErrorSubject,
  type SentinelErrorOptions,
  type ApiErrorBody,
  type JsonRpcErrorBody,
} from './errors.ts';
export {
  fromZod,
  zodIssueLines,
  type FromZodOptions,
  type ZodIssueLine,
  type ZodIssueOptions,
} from './zod.ts';
export { canonicalJson, digest, sha256 } from './canonical.ts';
export { ClusterSchema, type Cluster } from './cluster.ts';
export { closestNames, didYouMean } from './suggest.ts';
export { sentinelCommand } from './command-name.ts';
