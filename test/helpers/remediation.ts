/**
 * Helpers for the remediation tool tests: nock replies on the real REST paths, tool contexts for a
 * dry run and for an approved execution, and a recorder of requests nock did not expect (so a test
 * can prove a dry run sent nothing).
 */
import nock from 'nock';
import { afterEach, beforeEach } from 'vitest';
import type { ToolContext, ToolOutput } from '../../tools/define-tool.ts';
import type { Deployment, ReplicaSet } from '../../tools/kube/types.ts';
import type { RemediationOutput } from '../../tools/remediate/plan.ts';
import { mockApi, useMockedCluster, type TestCluster } from './kube.ts';

export const APPS = '/apis/apps/v1/namespaces';

/** A Kubernetes list body. */
export function listOf(kind: string, items: unknown[], apiVersion = 'apps/v1') {
  return { kind, apiVersion, metadata: { resourceVersion: '1' }, items };
}

/** nock: GET the Deployment, then (optionally) list its ReplicaSets with its selector. */
export function mockObserve(
  deployment: Deployment,
  replicaSets?: ReplicaSet[],
  selector = `app=${deployment.metadata!.name}`,
): nock.Scope {
  const { namespace, name } = deployment.metadata as { namespace: string; name: string };
  const scope = mockApi().get(`${APPS}/${namespace}/deployments/${name}`).reply(200, deployment);
  if (replicaSets) {
    scope
      .get(`${APPS}/${namespace}/replicasets`)
      .query({ labelSelector: selector, limit: 500 })
      .reply(200, listOf('ReplicaSetList', replicaSets));
  }
  return scope;
}

/**
 * Mocks the two reads a rollback preview makes to check its target revision's health: the
 * Deployment's Pods (by its selector) and the namespace's core events.
 */
export function mockTargetHealth(
  deployment: Deployment,
  pods: unknown[] = [],
  events: unknown[] = [],
  selector = `app=${deployment.metadata!.name}`,
): nock.Scope {
  const { namespace } = deployment.metadata as { namespace: string };
  return mockApi()
    .get(`/api/v1/namespaces/${namespace}/pods`)
    .query({ labelSelector: selector, limit: 500 })
    .reply(200, listOf('PodList', pods, 'v1'))
    .get(`/api/v1/namespaces/${namespace}/events`)
    .query({ limit: 500 })
    .reply(200, listOf('EventList', events, 'v1'));
}

/** Context of a dry run: reader only. */
export function dryRunContext(cluster: TestCluster): ToolContext {
  return { ...cluster.context(), dryRun: true };
}

/** Context of an approved execution: reader, writer and the approval request id. */
export function executeContext(cluster: TestCluster, approvalRequestId?: string): ToolContext {
  return {
    ...cluster.context(),
    writer: cluster.writer,
    ...(approvalRequestId !== undefined && { approvalRequestId }),
  };
}

/** Records every request no nock interceptor matched; `stop()` detaches. */
export function recordUnexpectedRequests(): { requests: string[]; stop: () => void } {
  const requests: string[] = [];
  const listener = (request: { method?: string; path?: string }) => {
    requests.push(`${request.method} ${request.path}`);
  };
  nock.emitter.on('no match', listener);
  return { requests, stop: () => nock.emitter.removeListener('no match', listener) };
}

/** `fixture` with a deep change applied (fixtures are plain JSON). */
export function edit<T>(fixture: T, change: (copy: T) => void): T {
  const copy = structuredClone(fixture);
  change(copy);
  return copy;
}

/**
 * `useMockedCluster` (network isolated, every nock interceptor asserted used after each test) plus,
 * per test, a fresh record of the requests no interceptor matched — so a test can prove that nothing,
 * in particular no write, was sent. Returns live references (read them inside tests).
 */
export function useRemediationApi(): { cluster: TestCluster; unexpected: string[] } {
  const state = { cluster: useMockedCluster(), unexpected: [] as string[] };
  let recorder: ReturnType<typeof recordUnexpectedRequests> | undefined;
  beforeEach(() => {
    recorder = recordUnexpectedRequests();
    state.unexpected = recorder.requests;
  });
  afterEach(() => recorder?.stop());
  return state;
}

/** The structured output of a remediation tool. */
export const structured = (output: ToolOutput): RemediationOutput => output.structured as RemediationOutput;
