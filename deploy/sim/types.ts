/**
 * Wire shapes (JSON as the API server sends it: timestamps are RFC 3339 strings) of the objects the
 * simulator stores. Only the fields the simulator reads or writes are typed; everything else a
 * client sends is kept verbatim through the index signature.
 */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  generateName?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  finalizers?: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  managedFields?: ManagedFieldsEntry[];
  [key: string]: unknown;
}

/** Any stored object. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: {
    key: string;
    operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    values?: string[];
  }[];
}

export interface ResourceRequirements {
  limits?: Record<string, string>;
  requests?: Record<string, string>;
}

export interface Container {
  name: string;
  image: string;
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  resources?: ResourceRequirements;
  ports?: { containerPort: number; protocol?: string; name?: string }[];
  readinessProbe?: Record<string, unknown>;
  livenessProbe?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface PodSpec {
  containers: Container[];
  nodeName?: string;
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
  [key: string]: unknown;
}

export interface PodTemplateSpec {
  metadata?: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  spec: PodSpec;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
  lastProbeTime?: string | null;
}

export interface DeploymentStrategy {
  type?: 'RollingUpdate' | 'Recreate';
  rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string };
}

export interface Deployment extends KubeObject {
  spec: {
    replicas?: number;
    selector: LabelSelector;
    template: PodTemplateSpec;
    strategy?: DeploymentStrategy;
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
    paused?: boolean;
    progressDeadlineSeconds?: number;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    unavailableReplicas?: number;
    conditions?: Condition[];
    collisionCount?: number;
  };
}

export interface ReplicaSet extends KubeObject {
  spec: {
    replicas?: number;
    selector: LabelSelector;
    template: PodTemplateSpec;
    minReadySeconds?: number;
  };
  status?: {
    replicas: number;
    fullyLabeledReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    observedGeneration?: number;
  };
}

export type ContainerState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | {
      terminated: {
        exitCode: number;
        reason: string;
        message?: string;
        startedAt: string;
        finishedAt: string;
        containerID: string;
        signal?: number;
      };
    };

export interface ContainerStatus {
  name: string;
  image: string;
  imageID: string;
  containerID?: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  state: ContainerState;
  lastState: ContainerState | Record<string, never>;
}

export interface Pod extends KubeObject {
  spec: PodSpec;
  status?: {
    phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
    reason?: string;
    conditions?: Condition[];
    hostIP?: string;
    podIP?: string;
    startTime?: string;
    qosClass?: string;
    containerStatuses?: ContainerStatus[];
  };
}

export interface ObjectReference {
  apiVersion?: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** A core `v1` Event (the stored form; `events.k8s.io/v1` is a view of it). */
export interface CoreEvent extends KubeObject {
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  type: 'Normal' | 'Warning';
  source: { component: string; host?: string };
  /** Absent on Events created through the API without it (and on events.k8s.io/v1 ones). */
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
  eventTime: string | null;
  /** Set only by events.k8s.io/v1 writers. */
  series?: { count: number; lastObservedTime: string };
  related?: ObjectReference;
  reportingComponent: string;
  reportingInstance: string;
  action?: string;
}

export interface StatefulSetUpdateStrategy {
  type?: 'RollingUpdate' | 'OnDelete';
  rollingUpdate?: { partition?: number; maxUnavailable?: number | string };
}

/** A PersistentVolumeClaim (stored as an object only: the simulator models no storage). */
export interface PersistentVolumeClaim extends KubeObject {
  spec: {
    accessModes?: string[];
    resources?: ResourceRequirements;
    storageClassName?: string;
    volumeMode?: string;
    volumeName?: string;
    [key: string]: unknown;
  };
  status?: {
    phase?: 'Pending' | 'Bound' | 'Lost';
    accessModes?: string[];
    capacity?: Record<string, string>;
  };
}

export interface StatefulSet extends KubeObject {
  spec: {
    replicas?: number;
    selector: LabelSelector;
    template: PodTemplateSpec;
    serviceName?: string;
    podManagementPolicy?: 'OrderedReady' | 'Parallel';
    updateStrategy?: StatefulSetUpdateStrategy;
    revisionHistoryLimit?: number;
    minReadySeconds?: number;
    volumeClaimTemplates?: PersistentVolumeClaim[];
    persistentVolumeClaimRetentionPolicy?: {
      whenDeleted?: 'Retain' | 'Delete';
      whenScaled?: 'Retain' | 'Delete';
    };
    ordinals?: { start?: number };
  };
  status?: {
    observedGeneration?: number;
    replicas: number;
    readyReplicas?: number;
    currentReplicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
    collisionCount?: number;
  };
}

export interface DaemonSetUpdateStrategy {
  type?: 'RollingUpdate' | 'OnDelete';
  rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string };
}

export interface DaemonSet extends KubeObject {
  spec: {
    selector: LabelSelector;
    template: PodTemplateSpec;
    updateStrategy?: DaemonSetUpdateStrategy;
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
  };
  status?: {
    currentNumberScheduled: number;
    numberMisscheduled: number;
    desiredNumberScheduled: number;
    numberReady: number;
    observedGeneration?: number;
    updatedNumberScheduled?: number;
    numberAvailable?: number;
    numberUnavailable?: number;
    collisionCount?: number;
  };
}

/** apps/v1 ControllerRevision: an immutable snapshot (`data`) of a StatefulSet's or DaemonSet's template. */
export interface ControllerRevision extends KubeObject {
  /** The strategic merge patch `{"spec":{"template":{…,"$patch":"replace"}}}` that restores the revision. */
  data?: Record<string, unknown>;
  revision: number;
}
