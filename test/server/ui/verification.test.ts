import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { approvalsPage, pageItem } from '../../../server/ui/page.ts';
import { investigationVerification } from '../../../server/ui/verification.ts';
import { approvalFixture, FIXTURES, FIXTURE_NOW } from '../../helpers/approvals.ts';
import { tempDataDir } from '../../helpers/server.ts';

const data = tempDataDir();
afterAll(() => data.cleanup());

const id = 'inv_00000000000000aa';
const executed = (investigation?: string) =>
  approvalFixture({
    status: 'executed',
    preview: { ...FIXTURES.rollback_deployment.preview!, ...(investigation && { investigation }) },
  });
const save = (name: string, record: unknown) => {
  mkdirSync(join(data.dir, 'investigations'), { recursive: true });
  writeFileSync(join(data.dir, 'investigations', `${name}.json`), JSON.stringify(record));
};

describe('verification after execution, from the investigation that asked', () => {
  const lookup = investigationVerification(data.dir);

  it('reads the recorded verification of the named investigation', () => {
    save(id, {
      id,
      verification: { healthy: true, state: 'complete', message: 'rollout complete', attempts: 1 },
    });
    expect(lookup(executed(id))).toEqual({
      verdict: 'healthy',
      text: `healthy: rollout complete (investigation ${id})`,
    });
    save(id, {
      verification: {
        healthy: false,
        state: 'reverted',
        message: 'the template Sentinel wrote was replaced',
        reverted_by: 'argocd-application-controller',
        attempts: 2,
      },
    });
    expect(lookup(executed(id))).toEqual({
      verdict: 'unhealthy',
      text: `not healthy, reverted: the template Sentinel wrote was replaced (reverted by argocd-application-controller) (investigation ${id})`,
    });
  });

  it('says "not reported yet" while nothing is recorded, and nothing for unexecuted or unnamed requests', () => {
    const other = 'inv_00000000000000bb';
    expect(lookup(executed(other))).toEqual({
      verdict: 'pending',
      text: `not reported yet by investigation ${other}`,
    });
    save(other, { verification: null });
    expect(lookup(executed(other))?.verdict).toBe('pending');
    save(other, 'not an investigation');
    expect(lookup(executed(other))?.verdict).toBe('pending');
    expect(lookup(executed())).toBeUndefined();
    expect(lookup({ ...executed(id), status: 'approved' })).toBeUndefined();
    // A name that is not an id is never turned into a path.
    expect(lookup(executed('../../etc/passwd'))).toBeUndefined();
  });

  it('is shown on the page item in words, with its verdict as a class', () => {
    const { html } = pageItem(executed(id), FIXTURE_NOW, { verdict: 'healthy', text: 'healthy: <b>ok</b>' });
    expect(html).toContain(
      '<p class="verification verification-healthy"><strong>Verification</strong> healthy: &lt;b&gt;ok&lt;/b&gt;</p>',
    );
  });
});

describe('clusters on the page', () => {
  it('labels each item with its cluster and offers a filter listing every cluster', () => {
    const staging = approvalFixture({
      id: 'apr_5555555555555555',
      cluster: { context: 'staging', server: 'https://10.0.0.1:6443' },
    });
    const items = [pageItem(FIXTURES.rollback_deployment, FIXTURE_NOW), pageItem(staging, FIXTURE_NOW)];
    expect(items.map((item) => item.cluster)).toEqual(['kind-sentinel', 'staging']);
    expect(items[1]!.html).toContain(
      '<p class="cluster-label">Cluster <strong title="https://10.0.0.1:6443">staging</strong></p>',
    );
    const page = approvalsPage({ identity: 'alice', csrf: 'c', snapshot: { pending: items, history: [] } });
    expect(page).toContain(
      '<select id="cluster-filter"><option value="*" selected>All clusters</option><option value="kind-sentinel">kind-sentinel</option><option value="staging">staging</option></select>',
    );
    expect(page).toContain('<li data-id="apr_5555555555555555" data-cluster="staging"');
  });
});
