/**
 * Kubernetes objects as the API server sends them (JSON, RFC 3339 timestamps), for nock replies and
 * unit tests. Each builder takes the few fields a test cares about and fills in the rest the way the
 * deployment controller and kubelet would.
 */
import type { Deployment, Pod, ReplicaSet } from '../../tools/kube/types.ts';

/** A fixed "now" for tests that format ages: 2024-05-01T12:00:00Z. */
export const NOW = Date.parse('2024-05-01T12:00:00Z');
/** RFC 3339 time `minutes` before NOW. */
export const ago = (minutes: number): string => new Date(NOW - minutes * 60_000).toISOString();

type Json = Record<string, unknown>;

export interface DeploymentFixture {
  name: string;
  namespace?: string;
  uid?: string;
  image?: string;
  images?: string[];
  replicas?: number;
  revision?: number;
  generation?: number;
  observedGeneration?: number;
  updated?: number;
  ready?: number;
  available?: number;
  current?: number;
  paused?: boolean;
  conditions?: { type: string; status: string; reason?: string; message?: string; lastUpdateTime?: string }[];
  env?: { name: string; value?: string }[];
  createdMinutesAgo?: number;
  labels?: Record<string, string>;
}

/** The pod template a Deployment at `images` would have (and its ReplicaSets copy). */
export function podTemplate(name: string, images: string[], env?: { name: string; value?: string }[]): Json {
  return {
    metadata: { labels: { app: name } },
    spec: {
      containers: images.map((image, i) => ({
        name: i === 0 ? 'app' : `sidecar-${i}`,
        image,
        ...(i === 0 && env && { env }),
        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
      })),
    },
  };
}

export function deployment(f: DeploymentFixture): Deployment & Json {
  const images = f.images ?? [f.image ?? `shop/${f.name}:1.0.0`];
  const replicas = f.replicas ?? 3;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: f.name,
      namespace: f.namespace ?? 'shop',
      uid: f.uid ?? `uid-${f.name}`,
      generation: f.generation ?? 1,
      creationTimestamp: ago(f.createdMinutesAgo ?? 600),
      labels: f.labels ?? { app: f.name },
      annotations: { 'deployment.kubernetes.io/revision': String(f.revision ?? 1) },
      managedFields: [{ manager: 'kubectl', operation: 'Update' }],
    },
    spec: {
      replicas,
      selector: { matchLabels: { app: f.name } },
      template: podTemplate(f.name, images, f.env),
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      progressDeadlineSeconds: 600,
      revisionHistoryLimit: 10,
      ...(f.paused !== undefined && { paused: f.paused }),
    },
    status: {
      observedGeneration: f.observedGeneration ?? f.generation ?? 1,
      replicas: f.current ?? replicas,
      updatedReplicas: f.updated ?? replicas,
      readyReplicas: f.ready ?? replicas,
      availableReplicas: f.available ?? f.ready ?? replicas,
      conditions: f.conditions ?? [
        {
          type: 'Available',
          status: 'True',
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        },
        {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetAvailable',
          message: `ReplicaSet "${f.name}-x" has successfully progressed.`,
        },
      ],
    },
  } as unknown as Deployment & Json;
}

export interface ReplicaSetFixture {
  deployment: Deployment & Json;
  revision: number | string;
  hash: string;
  image?: string;
  images?: string[];
  replicas?: number;
  ready?: number;
  changeCause?: string;
  createdMinutesAgo?: number;
  /** Owner uid override (e.g. a ReplicaSet with the same name prefix but another owner). */
  ownerUid?: string;
  name?: string;
}

/** A ReplicaSet controlled by the fixture's Deployment (owner reference with controller: true). */
export function replicaSet(f: ReplicaSetFixture): ReplicaSet & Json {
  const d = f.deployment as unknown as { metadata: { name: string; namespace: string; uid: string } };
  const images = f.images ?? [f.image ?? 'shop/app:1.0.0'];
  const template = podTemplate(d.metadata.name, images) as { metadata: { labels: Record<string, string> } };
  template.metadata.labels['pod-template-hash'] = f.hash;
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: f.name ?? `${d.metadata.name}-${f.hash}`,
      namespace: d.metadata.namespace,
      uid: `uid-rs-${f.hash}`,
      creationTimestamp: ago(f.createdMinutesAgo ?? 100),
      labels: { app: d.metadata.name, 'pod-template-hash': f.hash },
      annotations: {
        'deployment.kubernetes.io/revision': String(f.revision),
        ...(f.changeCause && { 'kubernetes.io/change-cause': f.changeCause }),
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: d.metadata.name,
          uid: f.ownerUid ?? d.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      replicas: f.replicas ?? 0,
      selector: { matchLabels: { app: d.metadata.name, 'pod-template-hash': f.hash } },
      template,
    },
    status: {
      replicas: f.replicas ?? 0,
      readyReplicas: f.ready ?? f.replicas ?? 0,
      availableReplicas: f.ready ?? f.replicas ?? 0,
    },
  } as unknown as ReplicaSet & Json;
}

export interface ContainerFixture {
  name?: string;
  image?: string;
  ready?: boolean;
  restarts?: number;
  running?: boolean;
  waiting?: { reason: string; message?: string };
  terminated?: { reason?: string; exitCode: number; signal?: number };
  last?: { reason?: string; exitCode: number; finishedMinutesAgo?: number };
  restartPolicy?: 'Always';
  started?: boolean;
}

export interface PodFixture {
  name: string;
  namespace?: string;
  owner?: ReplicaSet & Json;
  labels?: Record<string, string>;
  phase?: string;
  reason?: string;
  node?: string;
  containers?: ContainerFixture[];
  initContainers?: ContainerFixture[];
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
  createdMinutesAgo?: number;
  deleting?: boolean;
}

function containerStatus(c: ContainerFixture, i: number, prefix: string): Json {
  const state = c.waiting
    ? { waiting: c.waiting }
    : c.terminated
      ? { terminated: { ...c.terminated, finishedAt: ago(1), startedAt: ago(2) } }
      : { running: { startedAt: ago(30) } };
  return {
    name: c.name ?? `${prefix}${i}`,
    image: c.image ?? 'shop/app:1.0.0',
    imageID: '',
    ready: c.ready ?? (!c.waiting && !c.terminated),
    restartCount: c.restarts ?? 0,
    started: c.started ?? (!c.waiting && !c.terminated),
    state,
    lastState: c.last
      ? {
          terminated: {
            reason: c.last.reason,
            exitCode: c.last.exitCode,
            finishedAt: ago(c.last.finishedMinutesAgo ?? 5),
            startedAt: ago(10),
          },
        }
      : {},
  };
}

/** A Pod; by default one running, ready container `app`, owned by `owner` when given. */
export function pod(f: PodFixture): Pod & Json {
  const containers = f.containers ?? [{ name: 'app' }];
  const init = f.initContainers ?? [];
  const owner = f.owner as unknown as
    { metadata: { name: string; uid: string; labels: Record<string, string> } } | undefined;
  const ready = containers.every((c) => c.ready ?? (!c.waiting && !c.terminated));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: f.name,
      namespace: f.namespace ?? 'shop',
      uid: `uid-pod-${f.name}`,
      creationTimestamp: ago(f.createdMinutesAgo ?? 60),
      labels: f.labels ?? owner?.metadata.labels ?? { app: 'app' },
      ...(f.deleting && { deletionTimestamp: ago(0) }),
      ...(owner && {
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: owner.metadata.name,
            uid: owner.metadata.uid,
            controller: true,
          },
        ],
      }),
    },
    spec: {
      nodeName: f.node ?? 'node-1',
      initContainers: init.length
        ? init.map((c, i) => ({
            name: c.name ?? `init${i}`,
            image: c.image ?? 'busybox',
            ...(c.restartPolicy && { restartPolicy: c.restartPolicy }),
          }))
        : undefined,
      containers: containers.map((c, i) => ({ name: c.name ?? `c${i}`, image: c.image ?? 'shop/app:1.0.0' })),
    },
    status: {
      phase: f.phase ?? 'Running',
      ...(f.reason && { reason: f.reason }),
      conditions: f.conditions ?? [
        {
          type: 'Initialized',
          status: init.every(
            (c) => c.terminated?.exitCode === 0 || (c.restartPolicy === 'Always' && c.started),
          )
            ? 'True'
            : 'False',
        },
        { type: 'Ready', status: ready ? 'True' : 'False' },
        { type: 'PodScheduled', status: 'True' },
      ],
      ...(init.length && { initContainerStatuses: init.map((c, i) => containerStatus(c, i, 'init')) }),
      containerStatuses: containers.map((c, i) => containerStatus(c, i, 'c')),
    },
  } as unknown as Pod & Json;
}
