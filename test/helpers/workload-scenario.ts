/**
 * A scenario with a StatefulSet `shop/db` (3 replicas, a `data` volumeClaimTemplate) and a DaemonSet
 * `shop/agent` on 3 nodes, each rolled out to a second revision 10 minutes ago whose Pods
 * crash-loop: the StatefulSet is stuck with db-2 at revision 2, the DaemonSet with one node's Pod at
 * revision 2. For simulator tests of both controllers (kubectl and the store).
 */
export function workloadScenario(): Record<string, unknown> {
  const container = (name: string, image: string) => ({ name, image });
  return {
    name: 'workloads-test',
    description: 'StatefulSet and DaemonSet with a bad second revision',
    symptom: 'db and agent are broken',
    namespaces: ['shop'],
    expected: { diagnosis: 'bad second revisions', action: 'rollback', toRevision: 1 },
    workloads: [
      {
        at: '-1h',
        manifest: {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          metadata: {
            name: 'db',
            namespace: 'shop',
            labels: { app: 'db' },
            annotations: { 'kubernetes.io/change-cause': 'postgres 16.1' },
          },
          spec: {
            replicas: 3,
            serviceName: 'db',
            selector: { matchLabels: { app: 'db' } },
            template: {
              metadata: { labels: { app: 'db' } },
              spec: { containers: [container('postgres', 'registry.example.com/postgres:16.1')] },
            },
            volumeClaimTemplates: [
              {
                metadata: { name: 'data' },
                spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
              },
            ],
          },
        },
        changes: [
          {
            at: '-10m',
            changeCause: 'postgres 16.2',
            patch: {
              spec: {
                template: {
                  spec: { containers: [container('postgres', 'registry.example.com/postgres:16.2')] },
                },
              },
            },
          },
        ],
      },
      {
        at: '-1h',
        manifest: {
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          metadata: {
            name: 'agent',
            namespace: 'shop',
            labels: { app: 'agent' },
            annotations: { 'kubernetes.io/change-cause': 'agent 1.0' },
          },
          spec: {
            selector: { matchLabels: { app: 'agent' } },
            template: {
              metadata: { labels: { app: 'agent' } },
              spec: { containers: [container('agent', 'registry.example.com/agent:1.0')] },
            },
          },
        },
        changes: [
          {
            at: '-10m',
            changeCause: 'agent 1.1',
            patch: {
              spec: {
                template: { spec: { containers: [container('agent', 'registry.example.com/agent:1.1')] } },
              },
            },
          },
        ],
      },
    ],
    fates: [
      { match: { image: 'registry.example.com/postgres:16.2' }, fate: { kind: 'crashLoop' } },
      { match: { image: 'registry.example.com/agent:1.1' }, fate: { kind: 'crashLoop' } },
    ],
  };
}
