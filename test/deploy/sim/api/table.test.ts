/**
 * Server-side printing: pod STATUS, READY and RESTARTS cells, and the Accept header of a Table request.
 */
import { describe, expect, it } from 'vitest';
import { tableVersionRequested, toTable } from '../../../../deploy/sim/api/table.ts';
import { findResourceType } from '../../../../deploy/sim/resources.ts';
import type { Pod } from '../../../../deploy/sim/types.ts';

const NOW = Date.parse('2026-01-10T12:00:00Z');
const pods = findResourceType('', 'v1', 'pods')!;

function pod(status: Partial<NonNullable<Pod['status']>>, metadata: Partial<Pod['metadata']> = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'shop', creationTimestamp: '2026-01-10T11:00:00Z', ...metadata },
    spec: { containers: [{ name: 'c', image: 'i' }] },
    status: { phase: 'Running', ...status },
  };
}

function cells(object: Pod) {
  return toTable(pods, [object], NOW, { include: 'None', version: 'v1', resourceVersion: '1' }).rows[0]!
    .cells;
}

describe('table printing', () => {
  it('prints pod STATUS and RESTARTS as kubectl does', () => {
    const crashing = pod({
      containerStatuses: [
        {
          name: 'c',
          image: 'i',
          imageID: '',
          ready: false,
          started: false,
          restartCount: 7,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: {
            terminated: {
              exitCode: 1,
              reason: 'Error',
              startedAt: '2026-01-10T11:57:00Z',
              finishedAt: '2026-01-10T11:58:00Z',
              containerID: 'x',
            },
          },
        },
      ],
    });
    expect(cells(crashing).slice(0, 5)).toEqual(['p', '0/1', 'CrashLoopBackOff', '7 (2m ago)', '60m']);
    expect(cells(pod({}, { deletionTimestamp: '2026-01-10T12:00:30Z' }))[2]).toBe('Terminating');
    expect(cells(pod({ phase: 'Pending' }))[2]).toBe('Pending');
    const exited = pod({
      containerStatuses: [
        {
          name: 'c',
          image: 'i',
          imageID: '',
          ready: false,
          started: false,
          restartCount: 0,
          state: { terminated: { exitCode: 3, reason: '', startedAt: '', finishedAt: '', containerID: 'x' } },
          lastState: {},
        },
      ],
    });
    expect(cells(exited)[2]).toBe('ExitCode:3');
  });

  it('recognises the Accept header kubectl sends for Tables', () => {
    expect(
      tableVersionRequested(
        'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
      ),
    ).toBe('v1');
    expect(tableVersionRequested('application/json')).toBeUndefined();
    expect(tableVersionRequested(undefined)).toBeUndefined();
  });
});
