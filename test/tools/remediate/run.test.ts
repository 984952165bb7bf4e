import { describe, expect, it } from 'vitest';
import { runRemediation } from '../../../tools/remediate/run.ts';
import { planPause } from '../../../tools/remediate/pause-rollout.ts';
import type { Deployment } from '../../../tools/kube/types.ts';
import type { ToolContext } from '../../../tools/define-tool.ts';
import { deployment } from '../../helpers/fixtures.ts';
import { fakeKube } from '../../helpers/server.ts';

const kube = fakeKube();
const context = (extra: Partial<ToolContext> = {}): ToolContext => ({
  kube: kube.reader,
  cluster: kube.cluster,
  signal: new AbortController().signal,
  dryRun: false,
  ...extra,
});
const plan = () => planPause({ deployment: deployment({ name: 'web' }) as Deployment, replicaSets: [] });

describe('runRemediation', () => {
  it('refuses to execute without a writer, sending nothing', async () => {
    await expect(runRemediation(plan(), { dry_run: false }, context())).rejects.toMatchObject({
      code: 'internal',
      message:
        'pause_rollout was asked to change Deployment shop/web without a Kubernetes writer; nothing was sent.',
    });
  });

  it('previews in a dry run even with a writer at hand', async () => {
    const writer = fakeKube().writer; // every method throws if called
    const output = await runRemediation(plan(), { dry_run: true }, context({ dryRun: true, writer }));
    expect(output.structured).toMatchObject({ status: 'preview', dry_run: true, cluster: kube.cluster });
    expect(output.text.split('\n').slice(0, 2)).toEqual([
      "Cluster 'test-context' (https://127.0.0.1:6443)",
      'DRY RUN — nothing was changed. Preview: Pause rollouts of Deployment shop/web at revision 1 (shop/web:1.0.0): its Pods stay, template changes wait until resume_rollout.',
    ]);
  });
});
