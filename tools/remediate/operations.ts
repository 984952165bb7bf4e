/**
 * The Kubernetes calls each remediation tool makes, by `KubeReader`/`KubeWriter` method, and the RBAC
 * rules they need. The remediation Role in `deploy/k8s/` must grant exactly these
 * (test/deploy/k8s/rbac.test.ts), and the tools are tested to call nothing else.
 */
import {
  READER_OPERATIONS,
  WRITER_OPERATIONS,
  type KubeOperation,
  type KubeReader,
  type KubeWriter,
} from '../kube/index.ts';

type ReaderMethod = Exclude<keyof KubeReader, 'cluster' | 'getVersion'>;
type WriterMethod = keyof KubeWriter;

/** Per tool: the reader and writer methods it may call (dry runs use only the reader ones). */
export const REMEDIATION_KUBE_METHODS = {
  // read as sent (the template is copied back), again after a 409 to re-plan
  // kind StatefulSet/DaemonSet: the object and its ControllerRevisions, the revision's patch
  rollback_deployment: {
    reader: [
      'getDeploymentAsSent',
      'listReplicaSetsAsSent',
      'getStatefulSet',
      'getDaemonSet',
      'listControllerRevisions',
    ],
    writer: ['patchDeploymentJson', 'patchStatefulSetStrategic', 'patchDaemonSetStrategic'],
  },
  // a Service name is resolved through the Service's selector and the namespace's Deployments
  // ... or the one StatefulSet/DaemonSet behind it (then its ControllerRevisions)
  restart_service: {
    reader: [
      'getDeployment',
      'getService',
      'listDeployments',
      'listReplicaSets',
      'getStatefulSet',
      'getDaemonSet',
      'listStatefulSets',
      'listDaemonSets',
      'listControllerRevisions',
    ],
    writer: ['patchDeploymentStrategic', 'patchStatefulSetStrategic', 'patchDaemonSetStrategic'],
  },
  // attribution first (metadata patch), then the scale subresource; re-read for the status
  scale_deployment: {
    reader: ['getDeployment', 'listHorizontalPodAutoscalers', 'getStatefulSet'],
    writer: [
      'patchDeploymentStrategic',
      'patchDeploymentScale',
      'patchStatefulSetStrategic',
      'patchStatefulSetScale',
    ],
  },
  pause_rollout: { reader: ['getDeployment', 'listReplicaSets'], writer: ['patchDeploymentStrategic'] },
  resume_rollout: { reader: ['getDeployment', 'listReplicaSets'], writer: ['patchDeploymentStrategic'] },
  // the Pod, and its StatefulSet (to say whether it is recreated and which claims it keeps)
  delete_pod: { reader: ['getPod', 'getStatefulSet'], writer: ['deletePod'] },
} as const satisfies Record<string, { reader: readonly ReaderMethod[]; writer: readonly WriterMethod[] }>;

/**
 * The distinct API operations (verb, API group, resource) the remediation tools need, sorted by
 * group, resource and verb: what the remediation Role grants.
 */
export function remediationOperations(): KubeOperation[] {
  const operations = new Map<string, KubeOperation>();
  for (const { reader, writer } of Object.values(REMEDIATION_KUBE_METHODS)) {
    const used: KubeOperation[] = [
      ...reader.map((method) => READER_OPERATIONS[method]),
      ...writer.map((method) => WRITER_OPERATIONS[method]),
    ];
    for (const op of used) operations.set(`${op.group}|${op.resource}|${op.verb}`, op);
  }
  const key = (op: KubeOperation) => [op.group, op.resource, op.verb];
  return [...operations.values()].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    const i = x.findIndex((part, n) => part !== y[n]);
    return i < 0 ? 0 : x[i]! < y[i]! ? -1 : 1;
  });
}
