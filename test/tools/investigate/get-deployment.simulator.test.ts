/**
 * get_deployment's `template_digest` is the digest a rollback's effect records for its target
 * (`to_template`): after the rollback runs, the live template compares equal by digest, and any
 * later template change makes it differ — what verification's settle window relies on.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import { getDeployment, type GetDeploymentOutput } from '../../../tools/investigate/get-deployment.ts';
import { type KubeConnection } from '../../../tools/kube/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { rollbackDeployment } from '../../../tools/remediate/rollback-deployment.ts';
import { tempDataDir } from '../../helpers/server.ts';
import { callTool } from '../../helpers/tools.ts';

let sim: Simulator;
let connection: Extract<KubeConnection, { configured: true }>;
const data = tempDataDir();
beforeAll(async () => {
  const kubeconfig = join(data.dir, 'kubeconfig');
  sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0, kubeconfigPath: kubeconfig });
  const connected = connectKube({ kubeconfig });
  if (!connected.configured) throw new Error(connected.reason);
  connection = connected;
});
afterAll(async () => {
  await sim?.close();
  data.cleanup();
});

const context = (dryRun: boolean) => ({
  kube: connection.reader,
  cluster: connection.cluster,
  signal: new AbortController().signal,
  dryRun,
  ...(!dryRun && { writer: connection.writer, approvalRequestId: 'apr-digest-1' }),
});

const describeCheckout = async () =>
  (await callTool(getDeployment, { namespace: 'shop', name: 'checkout' }, context(false)))
    .structured as GetDeploymentOutput;

it('equals the rollback effect’s to_template once it ran, and differs before and after another change', async () => {
  const args = { namespace: 'shop', name: 'checkout', to_revision: 2 };
  const preview = await callTool(rollbackDeployment, { ...args, dry_run: true }, context(true));
  const effect = (preview.structured as { effect: { from_template: string; to_template: string } }).effect;
  const before = await describeCheckout();
  expect(before.template_digest).toMatch(/^[0-9a-f]{16}$/);
  expect(before.template_digest).toBe(effect.from_template);
  expect(before.template_digest).not.toBe(effect.to_template);

  await callTool(rollbackDeployment, args, context(false));
  expect((await describeCheckout()).template_digest).toBe(effect.to_template);

  const kube = connection.writer;
  await kube.patchDeploymentStrategic(
    'shop',
    'checkout',
    { spec: { template: { metadata: { annotations: { 'example.com/touched': 'yes' } } } } },
    { fieldManager: 'kubectl-edit' },
  );
  expect((await describeCheckout()).template_digest).not.toBe(effect.to_template);
});
