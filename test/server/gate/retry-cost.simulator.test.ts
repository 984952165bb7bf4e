/**
 * What an approved retry costs, counted where it lands: the simulator's API audit log (every
 * request it answered) and the handler's own runs. An approved rollback retry reads its target and
 * the target's ReplicaSets once and PATCHes once; the handler runs once for the preview the stale
 * check compares and once for the execution. The target revision's health (issue 14) is read by the
 * held call's preview, which the approver decides on, and stored with the request — not read again.
 *
 * Scenario rollback-skips-broken-revision: the previous revision of shop/cart crash-looped, so the
 * held preview carries a `target_unhealthy` warning.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type AuditEvent, type Simulator } from '../../../deploy/sim/index.ts';
import { allTools, type Tool } from '../../../tools/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { PendingResultMetaSchema } from '../../../server/gate/index.ts';
import { connectClient, tempDataDir } from '../../helpers/server.ts';
import { startGateServer } from './fixtures/serve.ts';

const data = tempDataDir();
const kubeconfig = join(data.dir, 'kubeconfig');
const auditLog = join(data.dir, 'k8s-audit.jsonl');
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({
    scenario: 'rollback-skips-broken-revision',
    timeScale: 0,
    kubeconfigPath: kubeconfig,
    auditLogPath: auditLog,
  });
});
afterAll(async () => {
  await sim?.close();
  data.cleanup();
});

const requests = (): AuditEvent[] =>
  readFileSync(auditLog, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditEvent);

/** The tools, with rollback_deployment's handler runs counted. */
function countingTools(): { tools: Tool[]; runs: { dryRun: boolean }[] } {
  const runs: { dryRun: boolean }[] = [];
  const tools = allTools.map((tool) =>
    tool.name !== 'rollback_deployment'
      ? tool
      : Object.freeze({
          ...tool,
          handler: (args: never, context: Parameters<Tool['handler']>[1]) => {
            runs.push({ dryRun: context.dryRun });
            return tool.handler(args, context);
          },
        }),
  ) as Tool[];
  return { tools, runs };
}

describe('an approved retry', { timeout: 120_000 }, () => {
  it('reads the target and its ReplicaSets once, PATCHes once, and runs the handler twice; the held preview warned', async () => {
    const { tools, runs } = countingTools();
    const s = await startGateServer({ kube: connectKube({ kubeconfig }), tools });
    const agent = await connectClient(s.url, s.tokens.agent);
    try {
      const args = { namespace: 'shop', name: 'cart', reason: 'cart is down' };
      const held = await agent.callTool({ name: 'rollback_deployment', arguments: args });
      if (held.isError) throw new Error(JSON.stringify(held));
      const id = PendingResultMetaSchema.parse(held._meta).approval_request_id;
      // The preview the approver decides on read the target revision's health and warns.
      const pending = await s.api(s.tokens.alice, 'GET', `/approvals/${id}`);
      expect(pending.body.preview.warnings.map((w: { kind: string }) => w.kind)).toContain(
        'target_unhealthy',
      );
      expect((await s.api(s.tokens.alice, 'POST', `/approvals/${id}/approve`)).status).toBe(200);
      const before = requests().length;
      runs.length = 0;
      const run = await agent.callTool({ name: 'rollback_deployment', arguments: args });
      expect(run._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
      const retry = requests().slice(before);
      expect(retry.map((event) => `${event.verb} ${event.objectRef?.resource ?? event.requestURI}`)).toEqual([
        'get deployments',
        'list replicasets',
        'patch deployments',
      ]);
      expect(runs).toEqual([{ dryRun: true }, { dryRun: false }]);
    } finally {
      await agent.close();
      await s.close();
    }
  });
});
