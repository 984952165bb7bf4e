/**
 * API defaulting (k8s.io/kubernetes/pkg/apis/{core,apps}/v1/defaults.go) for the fields that matter
 * to the simulator's semantics. Applied on every create, update and patch like the real API server
 * does, so a template that came back from a ReplicaSet (fully defaulted, as `kubectl rollout undo`
 * sends it) compares equal to the Deployment template it was made from.
 */
import { canonicalize } from './canonical.ts';
import type {
  Container,
  DaemonSet,
  Deployment,
  KubeObject,
  PersistentVolumeClaim,
  PodSpec,
  PodTemplateSpec,
  ReplicaSet,
  StatefulSet,
} from '../types.ts';

function defaultContainer(container: Container): void {
  container.terminationMessagePath ??= '/dev/termination-log';
  container.terminationMessagePolicy ??= 'File';
  const tag = container.image.includes('@') ? undefined : container.image.split('/').pop()!.split(':')[1];
  container.imagePullPolicy ??= tag === undefined || tag === 'latest' ? 'Always' : 'IfNotPresent';
  container.resources ??= {};
  for (const port of container.ports ?? []) port.protocol ??= 'TCP';
  for (const probe of [container.readinessProbe, container.livenessProbe]) {
    if (!probe) continue;
    probe['timeoutSeconds'] ??= 1;
    probe['periodSeconds'] ??= 10;
    probe['successThreshold'] ??= 1;
    probe['failureThreshold'] ??= 3;
    const httpGet = probe['httpGet'] as Record<string, unknown> | undefined;
    if (httpGet) {
      httpGet['path'] ??= '/';
      httpGet['scheme'] ??= 'HTTP';
    }
  }
}

function defaultPodSpec(spec: PodSpec): void {
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec['dnsPolicy'] ??= 'ClusterFirst';
  spec['securityContext'] ??= {};
  spec['schedulerName'] ??= 'default-scheduler';
  if (!Array.isArray(spec.containers)) return;
  for (const container of spec.containers)
    if (container && typeof container.image === 'string') defaultContainer(container);
}

/** SetDefaults_PersistentVolumeClaimSpec: volumeMode Filesystem. */
function defaultClaim(claim: PersistentVolumeClaim): void {
  if (!claim.spec || typeof claim.spec !== 'object') return;
  claim.spec.volumeMode ??= 'Filesystem';
}

function defaultTemplate(template: PodTemplateSpec | undefined): void {
  if (!template || typeof template !== 'object') return;
  template.metadata ??= {};
  if (template.spec && typeof template.spec === 'object') defaultPodSpec(template.spec);
}

/**
 * Drops `null` members, as decoding into the Go types does (kubectl sends e.g.
 * `template.metadata.creationTimestamp: null`, which a real server never stores).
 */
function pruneNulls(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) pruneNulls(item);
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const [key, member] of Object.entries(record)) {
      if (member === null) delete record[key];
      else pruneNulls(member);
    }
  }
}

/**
 * Fills the defaults of `object` (in place) for its storage, after dropping null members of metadata
 * and spec, then brings it to canonical stored form (`canonical.ts`: quantities, omitempty).
 * @throws ApiError 400 when a resource quantity does not parse.
 */
export function applyDefaults(storage: string, object: KubeObject): void {
  pruneNulls(object.metadata);
  pruneNulls(object['spec']);
  defaultFor(storage, object);
  canonicalize(object);
}

function defaultFor(storage: string, object: KubeObject): void {
  switch (storage) {
    case 'deployments': {
      const spec = (object as Deployment).spec;
      if (!spec || typeof spec !== 'object') return;
      spec.replicas ??= 1;
      spec.strategy ??= { type: 'RollingUpdate' };
      spec.strategy.type ??= 'RollingUpdate';
      if (spec.strategy.type === 'RollingUpdate') {
        spec.strategy.rollingUpdate ??= {};
        spec.strategy.rollingUpdate.maxSurge ??= '25%';
        spec.strategy.rollingUpdate.maxUnavailable ??= '25%';
      }
      spec.revisionHistoryLimit ??= 10;
      spec.progressDeadlineSeconds ??= 600;
      defaultTemplate(spec.template);
      return;
    }
    case 'replicasets': {
      const spec = (object as ReplicaSet).spec;
      if (!spec || typeof spec !== 'object') return;
      spec.replicas ??= 1;
      defaultTemplate(spec.template);
      return;
    }
    case 'statefulsets': {
      // SetDefaults_StatefulSet (pkg/apis/apps/v1/defaults.go).
      const spec = (object as StatefulSet).spec;
      if (!spec || typeof spec !== 'object') return;
      spec.replicas ??= 1;
      spec.podManagementPolicy ??= 'OrderedReady';
      spec.updateStrategy ??= { type: 'RollingUpdate' };
      spec.updateStrategy.type ??= 'RollingUpdate';
      if (spec.updateStrategy.type === 'RollingUpdate') {
        spec.updateStrategy.rollingUpdate ??= {};
        spec.updateStrategy.rollingUpdate.partition ??= 0;
      }
      spec.revisionHistoryLimit ??= 10;
      spec.persistentVolumeClaimRetentionPolicy ??= {};
      spec.persistentVolumeClaimRetentionPolicy.whenDeleted ??= 'Retain';
      spec.persistentVolumeClaimRetentionPolicy.whenScaled ??= 'Retain';
      for (const claim of spec.volumeClaimTemplates ?? []) {
        if (!claim || typeof claim !== 'object') continue;
        claim.apiVersion ??= 'v1';
        claim.kind ??= 'PersistentVolumeClaim';
        defaultClaim(claim);
        claim.status ??= { phase: 'Pending' };
      }
      defaultTemplate(spec.template);
      return;
    }
    case 'daemonsets': {
      // SetDefaults_DaemonSet.
      const spec = (object as DaemonSet).spec;
      if (!spec || typeof spec !== 'object') return;
      spec.updateStrategy ??= { type: 'RollingUpdate' };
      spec.updateStrategy.type ??= 'RollingUpdate';
      if (spec.updateStrategy.type === 'RollingUpdate') {
        spec.updateStrategy.rollingUpdate ??= {};
        spec.updateStrategy.rollingUpdate.maxUnavailable ??= 1;
        spec.updateStrategy.rollingUpdate.maxSurge ??= 0;
      }
      spec.revisionHistoryLimit ??= 10;
      defaultTemplate(spec.template);
      return;
    }
    case 'persistentvolumeclaims': {
      const claim = object as PersistentVolumeClaim;
      if (!claim.spec || typeof claim.spec !== 'object') return;
      defaultClaim(claim);
      claim.status ??= { phase: 'Pending' };
      return;
    }
    case 'pods': {
      const spec = object['spec'] as PodSpec | undefined;
      if (spec && typeof spec === 'object') defaultPodSpec(spec);
      return;
    }
    case 'services': {
      const spec = (object['spec'] ??= {}) as Record<string, unknown>;
      spec['type'] ??= 'ClusterIP';
      spec['sessionAffinity'] ??= 'None';
      for (const port of (spec['ports'] as Record<string, unknown>[] | undefined) ?? []) {
        port['protocol'] ??= 'TCP';
        port['targetPort'] ??= port['port'];
      }
      return;
    }
    case 'namespaces': {
      object['spec'] ??= { finalizers: ['kubernetes'] };
      object['status'] ??= { phase: 'Active' };
      object.metadata.labels = {
        ...object.metadata.labels,
        'kubernetes.io/metadata.name': object.metadata.name,
      };
      return;
    }
  }
}
