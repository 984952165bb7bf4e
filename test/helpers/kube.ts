/**
 * Kubernetes test helpers: a throwaway kubeconfig pointing at a fake API server that nock answers,
 * and a connected reader/writer with fast retries.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from 'vitest';
import { stringify } from 'yaml';
import { type KubeReader, type KubeWriter } from '../../tools/kube/index.ts';
import { connectKube, type ConnectOptions } from '../../tools/kube/connect.ts';
import type { ClusterIdentity, ToolContext } from '../../tools/define-tool.ts';
import { SentinelError } from '../../tools/errors.ts';

/** The fake API server nock intercepts (never resolved: real network is disabled). */
export const TEST_SERVER = 'https://k8s.test:6443';
export const TEST_CONTEXT = 'test-ctx';
export const TEST_TOKEN = 'test-token-0123456789';

/** Kubeconfig directories of the current test file, removed after its last test. */
const kubeconfigDirs = new Set<string>();
afterAll(() => {
  for (const dir of kubeconfigDirs) rmSync(dir, { recursive: true, force: true });
  kubeconfigDirs.clear();
});

/** Writes a kubeconfig with one context (`test-ctx` → TEST_SERVER, bearer TEST_TOKEN); returns its path and a cleanup. */
export function writeKubeconfig(
  options: { server?: string; context?: string; extraContexts?: string[] } = {},
): { path: string; dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-kube-'));
  kubeconfigDirs.add(dir);
  const path = join(dir, 'config');
  const context = options.context ?? TEST_CONTEXT;
  const contexts = [context, ...(options.extraContexts ?? [])];
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': context,
      clusters: [
        {
          name: 'test',
          cluster: { server: options.server ?? TEST_SERVER, 'insecure-skip-tls-verify': true },
        },
      ],
      users: [{ name: 'tester', user: { token: TEST_TOKEN } }],
      contexts: contexts.map((name) => ({ name, context: { cluster: 'test', user: 'tester' } })),
    }),
  );
  return { path, dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestCluster {
  reader: KubeReader;
  writer: KubeWriter;
  cluster: ClusterIdentity;
  /** A read-only tool context for calling handlers directly. */
  context(): ToolContext;
  remove(): void;
}

/** Connects to TEST_SERVER through a temporary kubeconfig, with retries that back off in milliseconds. */
export function connectTestCluster(options: Omit<ConnectOptions, 'kubeconfig'> = {}): TestCluster {
  const file = writeKubeconfig();
  const connection = connectKube({
    ...options,
    kubeconfig: file.path,
    retry: { minDelayMs: 1, maxDelayMs: 5, ...options.retry },
  });
  if (!connection.configured) throw new Error(connection.reason);
  const { reader, writer, cluster } = connection;
  return {
    reader,
    writer,
    cluster,
    context: () => ({ kube: reader, cluster, signal: new AbortController().signal, dryRun: false }),
    remove: file.remove,
  };
}

/** nock on TEST_SERVER; real network disabled except loopback. */
export function mockApi(): nock.Scope {
  return nock(TEST_SERVER);
}

/** Call in beforeAll: no real network except 127.0.0.1 (local servers the tests start). */
export function isolateNetwork(): void {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
}

/** Awaits `promise` expecting it to reject with a `SentinelError`; returns that error. */
export async function caughtSentinelError(promise: Promise<unknown>): Promise<SentinelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SentinelError);
  return error as SentinelError;
}

/** A Kubernetes `Status` failure body, as the API server sends it. */
export function statusBody(code: number, reason: string, message: string, details?: Record<string, unknown>) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
    details,
  };
}

/**
 * Registers the hooks of a nock-backed test file and returns its test cluster: real network off
 * (loopback allowed), a kubeconfig for TEST_SERVER, `Date` frozen at `now` when given, and after each
 * test every nock scope asserted done (then cleared).
 */
export function useMockedCluster(options: { now?: number } = {}): TestCluster {
  let cluster: TestCluster | undefined;
  beforeAll(() => {
    isolateNetwork();
    cluster = connectTestCluster();
  });
  if (options.now !== undefined) {
    const now = options.now;
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(now);
    });
  }
  afterEach(() => {
    vi.useRealTimers();
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(pending, 'nock interceptors never called').toEqual([]);
  });
  afterAll(() => cluster?.remove());
  const current = (): TestCluster => {
    if (!cluster) throw new Error('useMockedCluster: the cluster exists only inside tests');
    return cluster;
  };
  return {
    get reader() {
      return current().reader;
    },
    get writer() {
      return current().writer;
    },
    get cluster() {
      return current().cluster;
    },
    context: () => current().context(),
    remove: () => current().remove(),
  };
}
