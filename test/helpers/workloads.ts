/**
 * StatefulSets, DaemonSets and their ControllerRevisions as the API server sends them, for nock
 * replies (issue 15). A revision's `data` is what the controllers store: `{"spec":{"template":{...,
 * "$patch":"replace"}}}`; its name is `<owner>-<hash>` and it carries `controller-revision-hash`.
 */
import type nock from 'nock';
import { podTemplate } from './fixtures.ts';
import { mockApi } from './kube.ts';
import { APPS, listOf } from './remediation.ts';

type Json = Record<string, unknown>;

export interface WorkloadFixture {
  kind: 'StatefulSet' | 'DaemonSet';
  name: string;
  namespace?: string;
  image: string;
  replicas?: number;
  generation?: number;
  observedGeneration?: number;
  resourceVersion?: string;
  strategy?: Json;
  status?: Json;
  annotations?: Record<string, string>;
  volumeClaimTemplates?: string[];
}

/** A StatefulSet or DaemonSet running `image`. */
export function workload(f: WorkloadFixture): Json {
  const generation = f.generation ?? 4;
  const spec: Json = {
    selector: { matchLabels: { app: f.name } },
    template: podTemplate(f.name, [f.image]),
    revisionHistoryLimit: 10,
    updateStrategy: f.strategy ?? { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
  };
  if (f.kind === 'StatefulSet') {
    spec.replicas = f.replicas ?? 3;
    spec.serviceName = f.name;
    spec.podManagementPolicy = 'OrderedReady';
    if (f.volumeClaimTemplates) {
      spec.volumeClaimTemplates = f.volumeClaimTemplates.map((name) => ({
        metadata: { name },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      }));
    }
  }
  return {
    apiVersion: 'apps/v1',
    kind: f.kind,
    metadata: {
      name: f.name,
      namespace: f.namespace ?? 'shop',
      uid: `uid-${f.name}`,
      generation,
      resourceVersion: f.resourceVersion ?? '500',
      ...(f.annotations && { annotations: f.annotations }),
    },
    spec,
    status: f.status ?? { observedGeneration: f.observedGeneration ?? generation },
  };
}

/** The ControllerRevision `owner` (from `workload`) stored for `image` at `revision`. */
export function controllerRevision(
  owner: Json,
  revision: number,
  image: string,
  hash = `h${revision}`,
): Json {
  const meta = owner.metadata as { name: string; namespace: string; uid: string };
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${meta.name}-${hash}`,
      namespace: meta.namespace,
      labels: { app: meta.name, 'controller-revision-hash': hash },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: owner.kind, name: meta.name, uid: meta.uid, controller: true },
      ],
    },
    data: { spec: { template: { ...podTemplate(meta.name, [image]), $patch: 'replace' } } },
    revision,
  };
}

/** The REST path of a workload: `/apis/apps/v1/namespaces/shop/statefulsets/web`. */
export function workloadPath(object: Json): string {
  const meta = object.metadata as { name: string; namespace: string };
  return `${APPS}/${meta.namespace}/${object.kind === 'StatefulSet' ? 'statefulsets' : 'daemonsets'}/${meta.name}`;
}

/** nock: GET the workload, then list its ControllerRevisions with its selector. */
export function mockRevisioned(object: Json, revisions: Json[]): nock.Scope {
  const meta = object.metadata as { name: string; namespace: string };
  return mockApi()
    .get(workloadPath(object))
    .reply(200, object)
    .get(`${APPS}/${meta.namespace}/controllerrevisions`)
    .query({ labelSelector: `app=${meta.name}`, limit: 500 })
    .reply(200, listOf('ControllerRevisionList', revisions));
}
