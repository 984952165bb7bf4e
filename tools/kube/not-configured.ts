/**
 * The Kubernetes layer when no cluster is configured: a reader and writer whose every call fails
 * with `unavailable` and the reason (what is missing and how to configure a cluster), so the server
 * still starts and every tool answers clearly instead of talking to an unauthenticated localhost.
 */
import { SentinelError } from '../errors.ts';
import type { ClusterIdentity } from '../define-tool.ts';
import { READER_OPERATIONS, WRITER_OPERATIONS } from './operations.ts';
import type { KubeReader, KubeWriter } from './types.ts';

/** Cluster identity reported when none is configured. */
export const NO_CLUSTER: ClusterIdentity = Object.freeze({ context: '(not configured)', server: '(none)' });

function failing<M extends string>(methods: readonly M[], reason: string): Record<M, () => Promise<never>> {
  const fail = () => Promise.reject(new SentinelError('unavailable', reason));
  return Object.fromEntries(methods.map((m) => [m, fail])) as Record<M, () => Promise<never>>;
}

/** A `KubeReader` whose every method rejects with `unavailable` and `reason`. */
export function notConfiguredReader(reason: string): KubeReader {
  const methods = Object.keys(READER_OPERATIONS) as (keyof typeof READER_OPERATIONS)[];
  return Object.freeze({ cluster: NO_CLUSTER, ...failing(methods, reason) });
}

/** A `KubeWriter` whose every method rejects with `unavailable` and `reason`. */
export function notConfiguredWriter(reason: string): KubeWriter {
  return Object.freeze(failing(Object.keys(WRITER_OPERATIONS) as (keyof typeof WRITER_OPERATIONS)[], reason));
}
