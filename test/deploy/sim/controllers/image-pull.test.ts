/**
 * The simulated kubelet's image pull failures (deploy/sim/controllers/image-pull.ts), in the words a
 * real kubelet with containerd records: `Failed to pull image "<image>": <CRI error>` per cause (not
 * found, 401 unauthorized, 403 forbidden), and `FailedToRetrieveImagePullSecret` when a Pod's
 * `imagePullSecrets` names a Secret that does not exist.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedCluster } from '../../../../deploy/sim/cluster.ts';
import { pullErrorMessage } from '../../../../deploy/sim/controllers/image-pull.ts';
import { loadScenario } from '../../../../deploy/sim/scenario/load.ts';
import type { CoreEvent, KubeObject, Pod } from '../../../../deploy/sim/types.ts';

const IMAGE = 'private.example.com/shop/billing:3.2.0';

function cluster(cause: string | undefined, pullSecrets: string[], objects: KubeObject[] = []) {
  return new SimulatedCluster({
    timeScale: 0,
    scenario: loadScenario({
      name: 'pull',
      description: 'pull',
      symptom: 'none',
      namespaces: ['shop'],
      objects: objects.map((manifest) => ({ at: '-1h', manifest })),
      deployments: [
        {
          at: '-10m',
          manifest: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'billing', namespace: 'shop' },
            spec: {
              replicas: 1,
              selector: { matchLabels: { app: 'billing' } },
              template: {
                metadata: { labels: { app: 'billing' } },
                spec: {
                  imagePullSecrets: pullSecrets.map((name) => ({ name })),
                  containers: [{ name: 'billing', image: IMAGE }],
                },
              },
            },
          },
        },
      ],
      fates: [{ match: { image: IMAGE }, fate: { kind: 'imagePullError', ...(cause && { cause }) } }],
      expected: { diagnosis: 'none', action: 'none' },
    }),
  });
}

const warnings = (sim: SimulatedCluster) =>
  sim.store
    .list<CoreEvent>('events', 'shop')
    .filter((e) => e.type === 'Warning')
    .map((e) => `${e.reason}: ${e.message}`);

describe('image pull failures', () => {
  it('401 from the registry: containerd’s "failed to authorize … 401 Unauthorized", then ImagePullBackOff', () => {
    const sim = cluster('unauthorized', []);
    const message =
      `rpc error: code = Unknown desc = failed to pull and unpack image "${IMAGE}": failed to resolve reference "${IMAGE}": ` +
      'failed to authorize: failed to fetch oauth token: unexpected status from POST request to https://private.example.com/token: 401 Unauthorized';
    expect(pullErrorMessage(IMAGE, 'unauthorized')).toBe(message);
    expect(warnings(sim)).toContain(`Failed: Failed to pull image "${IMAGE}": ${message}`);
    expect(warnings(sim)).toContain('Failed: Error: ImagePullBackOff');
    const pod = sim.store.list<Pod>('pods', 'shop')[0]!;
    expect(pod.status!.containerStatuses![0]!.state).toEqual({
      waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${IMAGE}"` },
    });
  });

  it('403 and not found in containerd’s words; the default cause is not found', () => {
    expect(pullErrorMessage(IMAGE, 'forbidden')).toBe(
      `rpc error: code = Unknown desc = failed to pull and unpack image "${IMAGE}": failed to resolve reference "${IMAGE}": ` +
        'unexpected status from HEAD request to https://private.example.com/v2/shop/billing/manifests/3.2.0: 403 Forbidden',
    );
    const notFound = `rpc error: code = NotFound desc = failed to pull and unpack image "${IMAGE}": failed to resolve reference "${IMAGE}": ${IMAGE}: not found`;
    expect(pullErrorMessage(IMAGE, 'notFound')).toBe(notFound);
    expect(warnings(cluster(undefined, []))).toContain(
      `Failed: Failed to pull image "${IMAGE}": ${notFound}`,
    );
  });

  it('a Docker Hub short name resolves to docker.io/library', () => {
    expect(pullErrorMessage('nginx:1.27', 'forbidden')).toContain(
      'https://registry-1.docker.io/v2/library/nginx/manifests/1.27: 403 Forbidden',
    );
  });

  it('a pull secret the Pod names but the namespace lacks: FailedToRetrieveImagePullSecret naming it', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'regcred', namespace: 'shop' },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': 'e30=' },
    } as KubeObject;
    const sim = cluster('unauthorized', ['regcred', 'ghcr-creds', 'quay-creds'], [secret]);
    expect(warnings(sim)).toContain(
      'FailedToRetrieveImagePullSecret: Unable to retrieve some image pull secrets (ghcr-creds, quay-creds); attempting to pull the image may not succeed.',
    );
    expect(warnings(cluster('unauthorized', ['regcred'], [secret])).join('\n')).not.toContain(
      'FailedToRetrieveImagePullSecret',
    );
  });
});
