/**
 * The incident scenario format (`deploy/sim/scenarios/*.yaml`), validated with zod on load.
 *
 * Time is relative to the moment the simulator starts serving (t = 0): `at: -12m` means twelve
 * minutes before start. The simulator replays the history from the earliest `at` with its own
 * controllers, so at t = 0 the incident is already in progress: ReplicaSets and revisions exist,
 * Pods have restarted, events and conditions are those of some minutes in.
 */
import ms from 'ms';
import { z } from 'zod';

/** A duration relative to t = 0, e.g. `-12m`, `-3d`, `0s`, `90s` (units ms, s, m, h, d). */
export const OffsetSchema = z
  .string()
  .regex(/^-?\d+(ms|s|m|h|d)$/, 'must be a duration like -12m, -3d or 0s (units ms, s, m, h, d)')
  .transform((text) => ms(text as ms.StringValue))
  .refine((offset) => offset >= -7 * 86_400_000, 'must be no more than 7 days back (-7d)');

/** A time in the past (or t = 0) at which something happened. */
const PastOffsetSchema = OffsetSchema.refine(
  (offset) => offset <= 0,
  'must be at or before t = 0 (e.g. -5m or 0s)',
);

/** Any Kubernetes object manifest (apiVersion, kind, metadata.name required). */
export const ManifestSchema = z
  .object({
    apiVersion: z.string().min(1),
    kind: z.string().min(1),
    metadata: z.object({ name: z.string().min(1), namespace: z.string().min(1).optional() }).loose(),
  })
  .loose();

export type Manifest = z.infer<typeof ManifestSchema>;

export const DeploymentChangeSchema = z.strictObject({
  at: PastOffsetSchema,
  /** Recorded as the `kubernetes.io/change-cause` annotation (what `rollout history` shows). */
  changeCause: z.string().min(1).optional(),
  /** Strategic merge patch applied to the Deployment (template changes start a rollout). */
  patch: z.record(z.string(), z.unknown()),
});

export const ObjectEntrySchema = z.strictObject({
  /** When the object was created (default: at the start of the history). */
  at: PastOffsetSchema.optional(),
  manifest: ManifestSchema,
  /** Later edits in time order, each a strategic merge patch (e.g. a ConfigMap key removed: `{ data: { key: null } }`). */
  changes: z.array(DeploymentChangeSchema.omit({ changeCause: true })).default([]),
});

export const DeploymentEntrySchema = z.strictObject({
  at: PastOffsetSchema.optional(),
  manifest: ManifestSchema.refine((manifest) => manifest.kind === 'Deployment', 'kind must be Deployment'),
  /** Later changes in time order: each template change is a new revision. */
  changes: z.array(DeploymentChangeSchema).default([]),
});

/**
 * A StatefulSet or DaemonSet and its later changes (each template change is a new
 * ControllerRevision), replayed like `deployments`.
 */
export const WorkloadEntrySchema = z.strictObject({
  at: PastOffsetSchema.optional(),
  manifest: ManifestSchema.refine(
    (manifest) => manifest.kind === 'StatefulSet' || manifest.kind === 'DaemonSet',
    'kind must be StatefulSet or DaemonSet',
  ),
  changes: z.array(DeploymentChangeSchema).default([]),
});

const LogLinesSchema = z.array(z.string()).default([]);

export const FateSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('healthy'),
    readyAfterSeconds: z.number().min(0).default(2),
    logs: LogLinesSchema,
  }),
  z.strictObject({
    kind: z.literal('crashLoop'),
    /** When the failure begins (relative to t = 0): a Pod running before then is healthy until then. */
    since: OffsetSchema.optional(),
    runSeconds: z.number().positive().default(3),
    exitCode: z.number().int().min(1).max(255).default(1),
    logs: LogLinesSchema,
  }),
  z.strictObject({
    kind: z.literal('oomKilled'),
    /** When the kills begin (relative to t = 0): a Pod running before then is healthy until then. */
    since: OffsetSchema.optional(),
    runSeconds: z.number().positive().default(5),
    logs: LogLinesSchema,
  }),
  z.strictObject({
    kind: z.literal('imagePullError'),
    /** Why the registry refuses (deploy/sim/controllers/image-pull.ts words it as containerd does). */
    cause: z.enum(['notFound', 'unauthorized', 'forbidden']).default('notFound'),
    /** The CRI error text instead of `cause`'s. */
    message: z.string().min(1).optional(),
  }),
  z.strictObject({
    kind: z.literal('readinessFailure'),
    /** When probes start failing (relative to t = 0); immediately when absent. */
    since: OffsetSchema.optional(),
    readyAfterSeconds: z.number().min(0).default(2),
    probeMessage: z.string().default('HTTP probe failed with statuscode: 503'),
    logs: LogLinesSchema,
    failureLogs: LogLinesSchema,
  }),
  z.strictObject({
    kind: z.literal('livenessFailure'),
    /** When the liveness probe starts failing (relative to t = 0); immediately when absent. */
    since: OffsetSchema.optional(),
    readyAfterSeconds: z.number().min(0).default(2),
    probeMessage: z.string().default('HTTP probe failed with statuscode: 500'),
    logs: LogLinesSchema,
    /** Printed at each failed probe, cycling (what the process says while it hangs). */
    failureLogs: LogLinesSchema,
  }),
  z.strictObject({
    kind: z.literal('startupFailure'),
    probeMessage: z.string().default('HTTP probe failed with statuscode: 503'),
    logs: LogLinesSchema,
    failureLogs: LogLinesSchema,
  }),
  z.strictObject({
    kind: z.literal('unschedulable'),
    message: z
      .string()
      .default(
        '0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
      ),
  }),
]);

export type FateSpec = z.infer<typeof FateSchema>;

/** Conditions on a container and its Pod; all given conditions must hold. */
export const FateMatchSchema = z.strictObject({
  namespace: z.string().optional(),
  /** Pod labels that must all be present with these values. */
  labels: z.record(z.string(), z.string()).optional(),
  container: z.string().optional(),
  image: z.string().optional(),
  /** Environment variables (literal `value`s) that must all be set to these values. */
  env: z.record(z.string(), z.string()).optional(),
  /** Resource values that must all be equal, e.g. `{ limits: { memory: 128Mi } }`. */
  resources: z
    .strictObject({
      limits: z.record(z.string(), z.string()).optional(),
      requests: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  /** Pods created before this time (relative to t = 0): failures a fresh Pod cures. */
  createdBefore: OffsetSchema.optional(),
  /**
   * Any Pod fields by dotted path (`spec.imagePullSecrets`, `spec.nodeSelector.disktype`), compared
   * as JSON; `null` means absent (or an empty list or map, as Kubernetes treats them).
   */
  fields: z.record(z.string(), z.unknown()).optional(),
});

export type FateMatch = z.infer<typeof FateMatchSchema>;

/** A workload another one depends on; `namespace` defaults to the Pod's. */
export const WorkloadRefSchema = z.strictObject({
  kind: z.enum(['Deployment', 'StatefulSet', 'DaemonSet']).default('Deployment'),
  name: z.string().min(1),
  namespace: z.string().min(1).optional(),
});

export type WorkloadRef = z.infer<typeof WorkloadRefSchema>;

/**
 * When a rule applies, beyond its `match`; all given conditions must hold. Re-evaluated at every
 * container start and whenever a condition may have changed, so a running container whose rule
 * starts to hold takes its fate (e.g. exits), and one in back-off recovers at its next restart.
 */
export const FateWhenSchema = z.strictObject({
  /** From this time on (relative to t = 0). */
  after: OffsetSchema.optional(),
  /** While this workload has no available replicas (or does not exist): a failing dependency. */
  unavailable: WorkloadRefSchema.optional(),
});

export type FateWhen = z.infer<typeof FateWhenSchema>;

/** A Kubernetes quantity (`250m`, `124Mi`, `1.5Gi`, `134217728`). */
const QuantitySchema = z
  .string()
  .regex(
    /^[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/,
    'must be a Kubernetes quantity such as 250m or 124Mi',
  );

export const FateRuleSchema = z.strictObject({
  match: FateMatchSchema.default({}),
  when: FateWhenSchema.optional(),
  fate: FateSchema,
  /**
   * What the matched containers report to the metrics API while they run (metrics.k8s.io
   * PodMetrics, `kubectl top pod`): e.g. an OOM-looping container near its memory limit.
   */
  usage: z.strictObject({ cpu: QuantitySchema.optional(), memory: QuantitySchema.optional() }).optional(),
});

export type FateRule = z.infer<typeof FateRuleSchema>;

/** The right remediation: `refused:<reason>` when the right answer is to refuse and say why. */
export const ExpectedActionSchema = z
  .string()
  .regex(
    /^(rollback|restart|none|refused:[a-z0-9-]+)$/,
    'must be rollback, restart, none or refused:<reason>',
  );

export const ExpectedOutcomeSchema = z.strictObject({
  /** The object at fault (absent when nothing is wrong). */
  culprit: z.strictObject({ kind: z.string(), namespace: z.string(), name: z.string() }).optional(),
  /** One-line diagnosis a good investigation reaches. */
  diagnosis: z.string().min(1),
  action: ExpectedActionSchema,
  /** For `rollback`: the revision to return to. */
  toRevision: z.number().int().positive().optional(),
  /** Diagnosis facts the investigation must state (a subset of its structured `facts`). */
  facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  /** Warning kinds the remediation's preview must carry into the report (e.g. `target_unhealthy`, `argo_cd`). */
  warnings: z.array(z.string().min(1)).optional(),
  /** Objects no request may change (a victim of a failing dependency, an unrelated neighbour). */
  untouched: z
    .array(z.strictObject({ kind: z.string(), namespace: z.string(), name: z.string() }))
    .optional(),
  /** Container logs the investigation must read (`previous`: the crashed instance). */
  logsRead: z
    .array(z.strictObject({ container: z.string(), previous: z.boolean().default(true) }))
    .optional(),
  /** How verification must end: `reverted` with the field manager that reverted the approved state. */
  verification: z
    .strictObject({ state: z.enum(['healthy', 'reverted']), revertedBy: z.string().min(1).optional() })
    .optional(),
});

export type ExpectedOutcome = z.infer<typeof ExpectedOutcomeSchema>;

/** A further investigation on the same cluster, after the ones before it ended. */
export const ScenarioStepSchema = z.strictObject({
  /** The on-call engineer's next report. */
  symptom: z.string().min(1),
  /** Cluster-time seconds to wait after the previous investigation ended (default 0). */
  afterSeconds: z.number().min(0).max(3600).default(0),
  expected: ExpectedOutcomeSchema,
});

export type ScenarioStep = z.infer<typeof ScenarioStepSchema>;

export const ScenarioSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lowercase letters, digits and dashes'),
  description: z.string().min(1),
  /** The on-call engineer's report that opens the investigation. */
  symptom: z.string().min(1),
  /** Worker nodes (named sim-worker, sim-worker2, ...). */
  nodes: z.number().int().min(1).max(10).default(3),
  namespaces: z.array(z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a DNS label')).min(1),
  objects: z.array(ObjectEntrySchema).default([]),
  deployments: z.array(DeploymentEntrySchema).default([]),
  /** StatefulSets and DaemonSets with their revision histories. */
  workloads: z.array(WorkloadEntrySchema).default([]),
  /** Container fate rules; the first rule that matches a container wins; default: healthy. */
  fates: z.array(FateRuleSchema).default([]),
  /**
   * GitOps reconcilers: each records its Deployment's pod template at t = 0 and re-applies it
   * `afterSeconds` after any change, under its own field manager (managedFields show it).
   */
  reconcilers: z
    .array(
      z.strictObject({
        namespace: z.string().min(1),
        deployment: z.string().min(1),
        fieldManager: z.string().min(1),
        afterSeconds: z.number().min(0).default(30),
      }),
    )
    .default([]),
  /**
   * CPU utilisation of a Deployment's Pods, in percent of their requests (what the metrics API would
   * report): the HorizontalPodAutoscaler controller scales from it.
   */
  utilization: z
    .array(
      z.strictObject({
        namespace: z.string().min(1),
        deployment: z.string().min(1),
        cpu: z.number().int().min(0).max(10_000),
        /** From when (relative to t = 0; from the start when absent); the latest entry begun wins. */
        since: OffsetSchema.optional(),
      }),
    )
    .default([]),
  /**
   * API users besides `sim-admin`, each with a kubeconfig context of its name (token generated).
   * Authorised by the Roles and bindings among `objects` (e.g. `system:serviceaccount:sentinel:sentinel`
   * bound to deploy/k8s/'s roles).
   */
  identities: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        groups: z.array(z.string().min(1)).optional(),
      }),
    )
    .default([]),
  expected: ExpectedOutcomeSchema,
  /**
   * Further investigations on the same cluster after the first (`symptom`, `expected`), in order —
   * e.g. first the failing dependency, then a second symptom — each scored against its own expected.
   */
  steps: z.array(ScenarioStepSchema).default([]),
});

export type Scenario = z.infer<typeof ScenarioSchema>;
/** A scenario as written (durations as strings, defaults not yet applied). */
export type ScenarioInput = z.input<typeof ScenarioSchema>;
