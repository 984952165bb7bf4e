/**
 * deploy/kind/: the scripts are shellcheck-clean and syntactically valid bash, and the workload
 * manifests are accepted by the Kubernetes API (the simulator's validation and defaulting) and roll
 * out as the demo expects: known-good available, known-bad a new revision that crash-loops.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { startSimulator } from '../../../deploy/sim/index.ts';
import type { Simulator } from '../../../deploy/sim/index.ts';
import { rawRequest } from '../../helpers/sim.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';

const run = promisify(execFile);
const KIND_DIR = fileURLToPath(new URL('../../../deploy/kind/', import.meta.url));
const SCRIPTS = ['lib.sh', 'up.sh', 'break.sh', 'down.sh'].map((name) => `${KIND_DIR}${name}`);

function manifests(file: string): Record<string, unknown>[] {
  return parseAllDocuments(readFileSync(`${KIND_DIR}workloads/${file}`, 'utf8')).map(
    (doc) => doc.toJS() as Record<string, unknown>,
  );
}

describeWithTool('shellcheck', 'deploy/kind scripts', (shellcheck) => {
  it('are shellcheck-clean', async () => {
    const result = await run(shellcheck, ['-x', ...SCRIPTS]).then(
      () => ({ code: 0, output: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
    );
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });

  it('parse as bash', async () => {
    for (const script of SCRIPTS) await run('bash', ['-n', script]);
  });
});

describe('deploy/kind workloads', () => {
  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({
      timeScale: 0,
      scenario: {
        name: 'kind-workloads',
        description: 'empty cluster; the fates mirror what the kind images do',
        symptom: 'none',
        namespaces: ['default'],
        fates: [
          {
            match: { labels: { 'app.kubernetes.io/version': '2.4.1' } },
            fate: { kind: 'crashLoop', exitCode: 1 },
          },
        ],
        expected: { diagnosis: 'none', action: 'none' },
      },
    });
  });

  afterAll(async () => {
    await sim.close();
  });

  it('are accepted by the API and roll out as the demo expects', async () => {
    const [namespace] = manifests('namespace.yaml');
    expect((await rawRequest(sim, 'POST', '/api/v1/namespaces', { body: namespace })).status).toBe(201);
    const [deployment, service] = manifests('checkout.yaml');
    expect(
      (await rawRequest(sim, 'POST', '/apis/apps/v1/namespaces/shop/deployments', { body: deployment }))
        .status,
    ).toBe(201);
    expect(
      (await rawRequest(sim, 'POST', '/api/v1/namespaces/shop/services', { body: service })).status,
    ).toBe(201);
    sim.clock.advance(60_000);
    const path = '/apis/apps/v1/namespaces/shop/deployments/checkout';
    expect((await rawRequest(sim, 'GET', path)).json).toMatchObject({ status: { availableReplicas: 3 } });

    const [bad] = manifests('checkout-bad.yaml');
    const updated = await rawRequest(sim, 'PUT', path, { body: bad });
    expect(updated.status).toBe(200);
    sim.clock.advance(5 * 60_000);
    const after = (await rawRequest(sim, 'GET', path)).json as {
      metadata: { annotations: Record<string, string> };
    };
    expect(after.metadata.annotations['deployment.kubernetes.io/revision']).toBe('2');
    const pods = (
      await rawRequest(
        sim,
        'GET',
        '/api/v1/namespaces/shop/pods?labelSelector=app.kubernetes.io%2Fversion%3D2.4.1',
      )
    ).json as {
      items: { status: { containerStatuses: { state: { waiting?: { reason: string } } }[] } }[];
    };
    expect(pods.items.length).toBeGreaterThan(0);
    expect(
      pods.items.every(
        (pod) => pod.status.containerStatuses[0]!.state.waiting?.reason === 'CrashLoopBackOff',
      ),
    ).toBe(true);
  });
});
