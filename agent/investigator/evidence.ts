/**
 * The parts of the investigation tools' `structuredContent` the playbook reads, parsed at the
 * boundary (what arrives over MCP is untyped). Only the fields used are declared; everything else
 * passes through. Field meanings are the tools' own (tools/investigate/*.ts).
 */
import { z } from 'zod';

const Time = z.string().nullable();

/** `triage_namespace`. */
export const TriageSchema = z.object({
  namespace: z.string(),
  counts: z.object({ deployments: z.number(), pods: z.number(), warning_events: z.number() }),
  workloads: z.array(
    z.object({
      kind: z.string(),
      name: z.string(),
      severity: z.string(),
      summary: z.string(),
      likely_cause: z.string(),
      findings: z.array(z.object({ kind: z.string(), evidence: z.string(), pod: z.string().nullable() })),
      rollout: z
        .object({
          current_revision: z.number().nullable(),
          failing_revisions: z.array(z.number()),
          previous_revision: z
            .object({ revision: z.number(), images: z.array(z.string()), ready_replicas: z.number() })
            .nullable(),
        })
        .nullable(),
    }),
  ),
});
export type Triage = z.infer<typeof TriageSchema>;
export type TriageWorkload = Triage['workloads'][number];

/** `get_deployment`. */
export const DeploymentViewSchema = z.object({
  namespace: z.string(),
  name: z.string(),
  revision: z.number().nullable(),
  paused: z.boolean(),
  replicas: z.object({ desired: z.number(), ready: z.number(), available: z.number(), updated: z.number() }),
  conditions: z.array(
    z.object({
      type: z.string(),
      status: z.string(),
      reason: z.string().nullable(),
      message: z.string().nullable(),
    }),
  ),
  containers: z.array(
    z.object({
      name: z.string(),
      image: z.string(),
      limits: z.record(z.string(), z.string()),
      /** e.g. `liveness: http GET :8080/healthz delay=0s period=5s timeout=1s failure=3`. */
      probes: z.array(z.string()).optional(),
    }),
  ),
  /** HorizontalPodAutoscalers targeting it (tools/investigate/autoscalers.ts); absent from older servers. */
  autoscalers: z
    .array(
      z.object({
        name: z.string(),
        min_replicas: z.number(),
        max_replicas: z.number(),
        current_replicas: z.number().nullable(),
        metrics: z.array(
          z.object({
            name: z.string(),
            current_utilization: z.number().nullable(),
            target_utilization: z.number().nullable(),
          }),
        ),
        conditions: z.array(
          z.object({
            type: z.string(),
            status: z.string(),
            reason: z.string().nullable(),
            message: z.string().nullable().optional(),
          }),
        ),
        at_max: z.boolean(),
      }),
    )
    .optional(),
});
export type DeploymentView = z.infer<typeof DeploymentViewSchema>;

/** `get_service`: a Service's selector and the workloads owning the Pods it selects. */
export const ServiceViewSchema = z.object({
  namespace: z.string(),
  name: z.string(),
  selector: z.string().nullable(),
  pods: z.object({ matched: z.number(), ready: z.number() }),
  backends: z.array(z.object({ kind: z.string(), name: z.string(), pods: z.number(), ready: z.number() })),
});
export type ServiceView = z.infer<typeof ServiceViewSchema>;

/** `get_rollout_history` (newest first). */
export const HistorySchema = z.object({
  revisions: z.array(
    z.object({
      revision: z.number(),
      current: z.boolean(),
      replica_set: z.string(),
      images: z.array(z.string()),
      change_cause: z.string().nullable(),
      created: Time,
      replicas: z.number(),
      ready: z.number(),
      /** Absent from servers older than issue 14's health evidence. */
      health: z
        .object({
          state: z.enum(['healthy', 'failed', 'unknown']),
          failures: z.array(z.string()),
          basis: z.string(),
        })
        .optional(),
      /** What the revision changed from the one below it. */
      changes: z
        .array(
          z.object({
            kind: z.string(),
            container: z.string().optional(),
            key: z.string().optional(),
            from: z.union([z.string(), z.number(), z.boolean()]).nullable(),
            to: z.union([z.string(), z.number(), z.boolean()]).nullable(),
            text: z.string(),
          }),
        )
        .default([]),
    }),
  ),
});
export type History = z.infer<typeof HistorySchema>;
export type RevisionView = History['revisions'][number];

/** `list_pods`. */
export const PodsSchema = z.object({
  pods: z.array(
    z.object({
      name: z.string(),
      phase: z.string(),
      status: z.string(),
      ready_containers: z.number(),
      total_containers: z.number(),
      restarts: z.number(),
      created: Time,
      revision: z.number().nullable(),
      containers: z.array(
        z.object({
          name: z.string(),
          type: z.string(),
          image: z.string().nullable(),
          state: z.string(),
          reason: z.string().nullable(),
          ready: z.boolean(),
          restarts: z.number(),
          last_termination: z
            .object({ reason: z.string().nullable(), exit_code: z.number(), finished_at: Time })
            .nullable(),
          problem: z.string().nullable(),
        }),
      ),
    }),
  ),
});
export type PodView = z.infer<typeof PodsSchema>['pods'][number];

/** `list_events` (newest first). */
export const EventsSchema = z.object({
  events: z.array(
    z.object({
      type: z.string(),
      reason: z.string(),
      object: z.object({ kind: z.string(), name: z.string() }),
      count: z.number(),
      first_seen: Time,
      last_seen: Time,
      message: z.string(),
    }),
  ),
});
export type EventView = z.infer<typeof EventsSchema>['events'][number];

/** `get_pod_logs`. */
export const LogsSchema = z.object({
  pod: z.string(),
  container: z.string(),
  previous: z.boolean(),
  log: z.string(),
});
export type LogsView = z.infer<typeof LogsSchema>;

/** `get_pod_metrics` (`available: false` when the cluster serves no metrics API). */
export const PodMetricsSchema = z.object({
  available: z.boolean(),
  pods: z.array(
    z.object({
      name: z.string(),
      timestamp: Time,
      containers: z.array(
        z.object({
          name: z.string(),
          memory_mib: z.number().nullable(),
          memory_limit: z.string().nullable(),
        }),
      ),
    }),
  ),
});
export type PodMetricsView = z.infer<typeof PodMetricsSchema>;

/** `get_rollout_status`. */
export const RolloutStatusSchema = z.object({
  state: z.enum(['complete', 'progressing', 'failed', 'paused']),
  message: z.string(),
  revision: z.number().nullable(),
});
export type RolloutStatusView = z.infer<typeof RolloutStatusSchema>;

/** A remediation tool's dry run (tools/remediate/plan.ts `RemediationOutputSchema`). */
export const RemediationPreviewSchema = z.object({
  status: z.string(),
  summary: z.string(),
  warnings: z.array(z.object({ kind: z.string(), message: z.string() })).default([]),
  resolved_arguments: z.record(z.string(), z.unknown()),
});
export type RemediationPreview = z.infer<typeof RemediationPreviewSchema>;

/** Parses `structured` with `schema`; undefined when it is absent or does not fit. */
export function parseStructured<S extends z.ZodType>(
  schema: S,
  structured: Record<string, unknown> | null | undefined,
): z.infer<S> | undefined {
  if (!structured) return undefined;
  const parsed = schema.safeParse(structured);
  return parsed.success ? parsed.data : undefined;
}
