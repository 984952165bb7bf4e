import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toolTable, withToolTable } from '../../tools/catalog.ts';
import { allTools } from '../../tools/index.ts';

describe('tool catalog', () => {
  it('is exactly these tools with these risks', () => {
    expect(allTools.map((t) => [t.name, t.risk])).toEqual([
      ['get_cluster_version', 'read'],
      ['list_namespaces', 'read'],
      ['triage_namespace', 'read'],
      ['list_deployments', 'read'],
      ['get_deployment', 'read'],
      ['get_rollout_history', 'read'],
      ['get_rollout_status', 'read'],
      ['list_pods', 'read'],
      ['get_pod_logs', 'read'],
      ['list_events', 'read'],
      ['get_service', 'read'],
      ['rollback_deployment', 'destructive'],
      ['restart_service', 'destructive'],
      ['scale_deployment', 'destructive'],
      ['pause_rollout', 'write'],
      ['resume_rollout', 'write'],
      ['delete_pod', 'destructive'],
    ]);
  });

  it("README's tool table is the one generated from the registry (regenerate: node tools/catalog.ts)", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toBe(withToolTable(readme, allTools));
    expect(readme).toContain(toolTable(allTools));
  });

  it('renders one row per tool with the hints derived from its risk', () => {
    const rows = toolTable(allTools).split('\n').slice(2);
    expect(rows).toHaveLength(allTools.length);
    expect(rows[0]).toBe('| `get_cluster_version` | read | yes | no | Get the Kubernetes version |');
    expect(rows.find((r) => r.startsWith('| `rollback_deployment`'))).toBe(
      '| `rollback_deployment` | destructive | no | yes | Roll back a Deployment, StatefulSet or DaemonSet |',
    );
  });

  it('refuses a README without the table markers', () => {
    expect(() => withToolTable('# no table here', allTools)).toThrow('README has no');
  });
});
