/**
 * A generated scenario of any size, for benchmarks and scale tests: `pods` Pods in namespace
 * `bench`, as Deployments `svc-<i>` of `replicas` replicas (requests cpu 0.1, memory 128Mi), created
 * `history` ago (`3d`, `3h`) with one template change each halfway through (svc-0's at -20m, to a
 * crash-looping image), optionally with StatefulSets and DaemonSets (`workloads`). Validate it with
 * `parseScenario` like any scenario.
 */

export interface GeneratedScenarioOptions {
  /** Total Pods (the last Deployment takes the remainder). */
  pods: number;
  /** Replicas per Deployment (default 25). */
  replicas?: number;
  /** How long ago the Deployments were created: a scenario offset without sign (`3d`, `90m`). */
  history: string;
  /**
   * Also this many StatefulSets `db-<i>` (3 replicas, one volumeClaimTemplate) and DaemonSets
   * `agent-<i>` (one Pod per node), created with the Deployments, each with one template change
   * halfway through (default 0: none).
   */
  workloads?: number;
}

/** The scenario (unvalidated input). */
export function generateScenario(options: GeneratedScenarioOptions): Record<string, unknown> {
  const { pods, history } = options;
  const replicas = options.replicas ?? 25;
  const count = Math.max(1, Math.ceil(pods / replicas));
  const deployments = Array.from({ length: count }, (_, index) => {
    const name = `svc-${index}`;
    return {
      at: `-${history}`,
      manifest: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace: 'bench', labels: { app: name } },
        spec: {
          replicas: Math.min(replicas, pods - index * replicas),
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: {
              containers: [
                {
                  name: 'app',
                  image: `registry.example.com/bench/${name}:1.0.0`,
                  resources: { requests: { cpu: '0.1', memory: '128Mi' } },
                },
              ],
            },
          },
        },
      },
      changes: [
        {
          at:
            index === 0
              ? '-20m'
              : `-${Math.ceil(Number.parseInt(history, 10) / 2)}${history.replace(/^\d+/, '')}`,
          changeCause: `deploy ${name} 1.1.0`,
          patch: {
            spec: {
              template: {
                spec: { containers: [{ name: 'app', image: `registry.example.com/bench/${name}:1.1.0` }] },
              },
            },
          },
        },
      ],
    };
  });
  const workloads = Array.from({ length: options.workloads ?? 0 }, (_, index) =>
    (['StatefulSet', 'DaemonSet'] as const).map((kind) => {
      const name = kind === 'StatefulSet' ? `db-${index}` : `agent-${index}`;
      const image = (version: string) => `registry.example.com/bench/${name}:${version}`;
      return {
        at: `-${history}`,
        manifest: {
          apiVersion: 'apps/v1',
          kind,
          metadata: { name, namespace: 'bench', labels: { app: name } },
          spec: {
            ...(kind === 'StatefulSet' && {
              replicas: 3,
              serviceName: name,
              volumeClaimTemplates: [
                {
                  metadata: { name: 'data' },
                  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
                },
              ],
            }),
            selector: { matchLabels: { app: name } },
            template: {
              metadata: { labels: { app: name } },
              spec: { containers: [{ name: 'app', image: image('1.0.0') }] },
            },
          },
        },
        changes: [
          {
            at: `-${Math.ceil(Number.parseInt(history, 10) / 2)}${history.replace(/^\d+/, '')}`,
            changeCause: `deploy ${name} 1.1.0`,
            patch: { spec: { template: { spec: { containers: [{ name: 'app', image: image('1.1.0') }] } } } },
          },
        ],
      };
    }),
  ).flat();
  return {
    name: `generated-${pods}`,
    description: `${pods} Pods in namespace bench with ${history} of history (generated)`,
    symptom: 'none',
    nodes: 3,
    namespaces: ['bench'],
    deployments,
    ...(workloads.length > 0 && { workloads }),
    fates: [
      {
        match: { image: 'registry.example.com/bench/svc-0:1.1.0' },
        fate: { kind: 'crashLoop', runSeconds: 2, exitCode: 1, logs: ['boom'] },
      },
    ],
    expected: { diagnosis: 'svc-0 1.1.0 crash-loops since its rollout 20 minutes ago', action: 'none' },
  };
}
