import { expect, it } from 'vitest';
import { createApprovalsHub, type ApprovalEvent } from '../../../server/gate/events.ts';
import { startEventBridge, type RemoteEventNote } from '../../../server/postgres/events.ts';
import { approvalFixture } from '../../helpers/approvals.ts';
import { describeWithPostgres } from '../../helpers/postgres.ts';

describeWithPostgres('approval events across replicas (LISTEN/NOTIFY)', (server) => {
  it("delivers each replica's notes to the others, never back to itself", async () => {
    const url = await server().newDatabase();
    const received: Record<string, RemoteEventNote[]> = { a: [], b: [], c: [] };
    const bridges = await Promise.all(
      ['a', 'b', 'c'].map((replica) =>
        startEventBridge({ url, replica, onRemote: (note) => received[replica]!.push(note) }),
      ),
    );
    try {
      bridges[0]!.notify('approval_decided', 'apr_1');
      bridges[1]!.notify('approval_created', 'apr_2');
      // Wait until every note landed (each replica should receive the other two replicas' notes).
      while (received.a!.length < 1 || received.b!.length < 1 || received.c!.length < 2) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(received.a).toEqual([{ replica: 'b', type: 'approval_created', id: 'apr_2' }]);
      expect(received.b).toEqual([{ replica: 'a', type: 'approval_decided', id: 'apr_1' }]);
      // Two senders on two connections: their notes may arrive in either order.
      expect(received.c).toHaveLength(2);
      expect(received.c).toEqual(
        expect.arrayContaining([
          { replica: 'a', type: 'approval_decided', id: 'apr_1' },
          { replica: 'b', type: 'approval_created', id: 'apr_2' },
        ]),
      );
    } finally {
      await Promise.all(bridges.map((bridge) => bridge.close()));
    }
  });
});

it('hands remote events to live views only, not to what records or notifies', () => {
  const hub = createApprovalsHub();
  const recorded: string[] = [];
  const live: string[] = [];
  hub.subscribe((event) => recorded.push(event.type));
  hub.subscribe((event) => live.push(event.type), { remote: true });
  const event: ApprovalEvent = { type: 'approval_decided', request: approvalFixture() };
  hub.publish(event);
  hub.publishRemote(event);
  expect(recorded).toEqual(['approval_decided']);
  expect(live).toEqual(['approval_decided', 'approval_decided']);
});
