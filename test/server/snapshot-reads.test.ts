import { describe, expect, it } from 'vitest';
import type { KubeReader } from '../../tools/kube/types.ts';
import { sanitizedCopy, unsanitized } from '../../tools/index.ts';
import { createSnapshotReads } from '../../server/snapshot-reads.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const pods = [
  { metadata: { name: 'web-1', labels: { app: 'web' } } },
  { metadata: { name: 'web-2', labels: { app: 'web', tier: 'canary' } } },
  { metadata: { name: 'db-0', labels: { app: 'db' } } },
];

/** A fake reader recording every call (`method args`); each answer is a new object. */
function recordingReader(options: { failFirst?: boolean } = {}) {
  const calls: string[] = [];
  let failures = options.failFirst ? 1 : 0;
  const answer = <T>(call: string, value: T): Promise<T> => {
    calls.push(call);
    if (failures-- > 0) return Promise.reject(new Error('unavailable'));
    return Promise.resolve(structuredClone(value));
  };
  const reader = Object.freeze({
    cluster: { context: 'sim', server: 'https://127.0.0.1:6443' },
    getDeployment: (namespace: string, name: string) =>
      answer(`getDeployment ${namespace}/${name}`, { metadata: { name, generation: calls.length } }),
    getDeploymentAsSent: (namespace: string, name: string) =>
      answer(`getDeploymentAsSent ${namespace}/${name}`, {
        metadata: { name, generation: calls.length },
      }).then((sent) => sanitizedCopy(sent)),
    getPod: (namespace: string, name: string) =>
      answer(`getPod ${namespace}/${name}`, { metadata: { name, labels: { read: 'alone' } } }),
    listPods: (namespace: string, o?: { labelSelector?: string; fieldSelector?: string }) =>
      answer(`listPods ${namespace} ${o?.labelSelector ?? ''} ${o?.fieldSelector ?? ''}`.trim(), pods),
  }) as unknown as KubeReader;
  return { reader, calls };
}

describe('read snapshots', () => {
  it('sends each distinct read of a snapshot once and gives every call its own copy', async () => {
    const { reader, calls } = recordingReader();
    const snapshots = createSnapshotReads();
    const [a, b] = await Promise.all([
      snapshots.reader('inv_1', reader).getDeployment('shop', 'web'),
      snapshots.reader('inv_1', reader).getDeployment('shop', 'web'),
    ]);
    a.metadata!.name = 'changed by a handler';
    const c = await snapshots.reader('inv_1', reader).getDeployment('shop', 'web');
    expect(b.metadata?.name).toBe('web');
    expect(c.metadata?.name).toBe('web');
    // The plain read is answered by the as-sent one (so a later as-sent read shares it).
    const sent = await snapshots.reader('inv_1', reader).getDeploymentAsSent('shop', 'web');
    expect(unsanitized(sent)).not.toBe(sent);
    expect(calls).toEqual(['getDeploymentAsSent shop/web']);
    // Another snapshot, or no snapshot at all, reads the cluster.
    await snapshots.reader('inv_2', reader).getDeployment('shop', 'web');
    await reader.getDeployment('shop', 'web');
    expect(calls).toHaveLength(3);
  });

  it('answers a labelled list from the snapshot’s whole list, filtered as the API server filters', async () => {
    const { reader, calls } = recordingReader();
    const snapshot = createSnapshotReads().reader('inv_1', reader);
    await snapshot.listPods('shop');
    const names = async (labelSelector: string) =>
      (await snapshot.listPods('shop', { labelSelector })).map((p) => p.metadata?.name);
    expect(await names('app=web')).toEqual(['web-1', 'web-2']);
    expect(await names('app=web,tier!=canary')).toEqual(['web-1']);
    expect(await names('app in (db)')).toEqual(['db-0']);
    expect(calls).toEqual(['listPods shop']);
    // A field selector is the API server's to apply.
    await snapshot.listPods('shop', { fieldSelector: 'status.phase=Running' });
    expect(calls).toEqual(['listPods shop', 'listPods shop  status.phase=Running']);
  });

  it('answers one Pod from the snapshot’s list of its namespace, and reads a Pod not in it', async () => {
    const { reader, calls } = recordingReader();
    const snapshot = createSnapshotReads().reader('inv_1', reader);
    expect((await snapshot.getPod('shop', 'web-2')).metadata?.name).toBe('web-2');
    await snapshot.listPods('shop');
    expect((await snapshot.getPod('shop', 'web-1')).metadata?.labels).toEqual({ app: 'web' });
    expect((await snapshot.getPod('shop', 'web-9')).metadata?.labels).toEqual({ read: 'alone' });
    expect(calls).toEqual(['getPod shop/web-2', 'listPods shop', 'getPod shop/web-9']);
  });

  it('drops every snapshot on forget (a write), keeps no failed read, and ages snapshots out', async () => {
    let now = 0;
    const { reader, calls } = recordingReader({ failFirst: true });
    const snapshots = createSnapshotReads({ maxAgeMs: 1000, maxSnapshots: 2, now: () => now });
    await expect(snapshots.reader('inv_1', reader).getDeployment('shop', 'web')).rejects.toThrow(
      'unavailable',
    );
    await snapshots.reader('inv_1', reader).getDeployment('shop', 'web');
    await snapshots.reader('inv_1', reader).getDeployment('shop', 'web');
    expect(calls).toHaveLength(2);
    snapshots.forget();
    await snapshots.reader('inv_1', reader).getDeployment('shop', 'web');
    expect(calls).toHaveLength(3);
    now = 1000;
    await snapshots.reader('inv_1', reader).getDeployment('shop', 'web');
    expect(calls).toHaveLength(4);
    // At most two snapshots: a third drops the oldest.
    await snapshots.reader('inv_2', reader).getDeployment('shop', 'web');
    await snapshots.reader('inv_3', reader).getDeployment('shop', 'web');
    await snapshots.reader('inv_1', reader).getDeployment('shop', 'web');
    expect(calls).toHaveLength(7);
    const answer: Json = await snapshots.reader('inv_3', reader).getDeployment('shop', 'web');
    expect(answer.metadata.name).toBe('web');
    expect(calls).toHaveLength(7);
  });
});
