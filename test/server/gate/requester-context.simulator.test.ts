/**
 * What the approver is shown besides the call (issue 18, "the page as a decision surface"): the
 * requester's evidence lines and the investigation it comes from travel as gate-owned arguments —
 * recorded on the request, never matched, never passed to the tool — and the real rollback's dry run
 * adds the pod template diff, all against the embedded simulator.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { allTools } from '../../../tools/index.ts';
import { ApprovalRequestSchema, PendingResultMetaSchema } from '../../../server/gate/index.ts';
import { connectClient, tempDataDir } from '../../helpers/server.ts';
import { startGateServer, type GateServer } from './fixtures/serve.ts';

const checkout = { namespace: 'shop', name: 'checkout' };
const evidence = [
  { line: 'checkout-6d4f: CrashLoopBackOff, 5 restarts', call: 'list_pods namespace=shop' },
  { line: 'revision 2 (checkout:2.4.1) started failing 40s after its rollout', call: 'get_rollout_history' },
];

let sim: Simulator;
let s: GateServer;
const data = tempDataDir();
beforeAll(async () => {
  const kubeconfig = join(data.dir, 'kubeconfig');
  sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0, kubeconfigPath: kubeconfig });
  s = await startGateServer({ kube: connectKube({ kubeconfig }), tools: allTools });
});
afterAll(async () => {
  await s?.close();
  await sim?.close();
  data.cleanup();
});

describe('evidence, investigation and template diff on a held rollback', { timeout: 120_000 }, () => {
  it('records them on the request; the retry without them still matches and executes', async () => {
    const agent = await connectClient(s.url, s.tokens.agent);
    try {
      const held = await agent.callTool({
        name: 'rollback_deployment',
        arguments: { ...checkout, evidence, investigation: 'inv_0123456789abcdef' },
      });
      const id = PendingResultMetaSchema.parse(held._meta).approval_request_id;
      const request = ApprovalRequestSchema.parse(
        (await s.api(s.tokens.alice, 'GET', `/approvals/${id}`)).body,
      );
      expect(request.preview?.evidence).toEqual(evidence);
      expect(request.preview?.investigation).toBe('inv_0123456789abcdef');
      // Never part of the call: not in what executes, not in what was requested.
      expect(Object.keys(request.arguments).sort()).toEqual(['name', 'namespace', 'to_revision']);
      expect(request.requested_arguments).not.toHaveProperty('evidence');
      const diff = request.preview?.template_diff ?? '';
      expect(diff.split('\n').slice(0, 2)).toEqual(['--- current pod template', '+++ proposed pod template']);
      expect(diff).toMatch(/^-\s+image: \S+$/m);
      expect(diff).toMatch(/^\+\s+image: \S+$/m);
      expect(diff).not.toContain('pod-template-hash');

      expect((await s.api(s.tokens.alice, 'POST', `/approvals/${id}/approve`)).status).toBe(200);
      // The same call with other evidence (or none) is the same call: the grant lets it through.
      const retried = await agent.callTool({ name: 'rollback_deployment', arguments: checkout });
      expect(retried.isError).toBeFalsy();
      expect((retried._meta as { approval_status?: string }).approval_status).toBe('executed');
    } finally {
      await agent.close();
    }
  });

  it('refuses malformed evidence before anything runs, naming the field and the rule', async () => {
    const agent = await connectClient(s.url, s.tokens.agent);
    try {
      const refused = await agent.callTool({
        name: 'rollback_deployment',
        arguments: { ...checkout, evidence: [{ line: '', call: 'list_pods' }] },
      });
      expect(refused.isError).toBe(true);
      expect((refused.content as { text: string }[])[0]!.text).toMatch(
        /arguments\.evidence\[0\]\.line: must not be empty/,
      );
    } finally {
      await agent.close();
    }
  });
});
