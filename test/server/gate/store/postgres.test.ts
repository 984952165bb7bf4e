import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../../../server/gate/store/postgres.ts';
import type { ApprovalStore, StoredExecution } from '../../../../server/gate/store/types.ts';
import {
  EXECUTION_LATER_COLUMNS,
  executionColumns,
  REQUEST_COLUMNS,
  REQUEST_LATER_COLUMNS,
} from '../../../../server/gate/store/rows.ts';
import { migrate, shippedMigrations } from '../../../../server/postgres/migrate.ts';
import { describeWithPostgres } from '../../../helpers/postgres.ts';
import { describeApprovalStoreContract, newRequest } from './contract.ts';

describeWithPostgres('PostgreSQL approval store', (server) => {
  describeApprovalStoreContract('PostgreSQL', async () =>
    openPostgresStore({ url: await server().newSchema() }),
  );

  describe('replicas on one database', () => {
    const binding = {
      requester: 'agent',
      credential: '',
      cluster: 'kind',
      clusterServer: 'https://127.0.0.1:6443',
    };
    const T = new Date('2025-01-31T02:12:00.000Z');
    const approved = async (store: ApprovalStore) => {
      const { request } = await store.createOrReusePending(
        newRequest(),
        new Date('2025-01-31T02:10:00.000Z'),
      );
      const decision = {
        decision: 'allow' as const,
        by: 'alice',
        at: T.toISOString(),
        reason: null,
        admin_fallback: false,
      };
      await store.decide(
        request.id,
        decision,
        { validity: 'once', expires_at: '2025-01-31T03:00:00.000Z' },
        T,
      );
      return request.id;
    };
    const begin = (store: ApprovalStore, id: string, requestId: string) =>
      store.beginExecution(
        {
          id,
          ...binding,
          tool: 'scale_deployment',
          callKey: 'key-resolved',
          arguments: {},
          authorization: 'once',
          requestId,
        },
        T,
      );

    it('consumes a once grant exactly once when 150 executions start together on three stores', async () => {
      const url = await server().newDatabase();
      const stores = await Promise.all([1, 2, 3].map(() => openPostgresStore({ url })));
      try {
        const requestId = await approved(stores[0]!);
        const starts = await Promise.all(
          Array.from({ length: 150 }, (_, i) => begin(stores[i % 3]!, `exe_${i}`, requestId)),
        );
        expect(starts.filter((start) => start.ok)).toHaveLength(1);
        expect(starts.filter((start) => !start.ok && start.reason === 'not_approved')).toHaveLength(149);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
    });

    it("hands a stopped replica's running executions to one survivor, never a live replica's", async () => {
      const url = await server().newDatabase();
      const [a, b, c] = await Promise.all([1, 2, 3].map(() => openPostgresStore({ url })));
      try {
        const requestId = await approved(a!);
        expect(await begin(a!, 'exe_a', requestId)).toMatchObject({ ok: true });
        // A runs it: nobody else may settle it, and A itself is not asked to (it is running it).
        expect(await b!.listOrphaned!()).toEqual([]);
        expect(await a!.listOrphaned!()).toEqual([]);
        expect((await c!.listExecuting()).map((e) => e.id)).toEqual(['exe_a']);
        await a!.close(); // as a SIGKILL would: its connections, and so its lock, are gone
        // The server ends A's backends (and frees its lock) a moment after the client hangs up, later
        // under load: the survivors look again, as their reconcile loop does, until one claims it.
        let claimedByB: StoredExecution[] = [];
        let claimedByC: StoredExecution[] = [];
        for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
          [claimedByB, claimedByC] = await Promise.all([b!.listOrphaned!(), c!.listOrphaned!()]);
          if (claimedByB.length + claimedByC.length > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect([...claimedByB, ...claimedByC].map((e) => e.id)).toEqual(['exe_a']);
        const survivor = claimedByB.length > 0 ? b! : c!;
        const other = survivor === b ? c! : b!;
        // Still the survivor's to settle (e.g. the cluster was unreadable), and only the survivor's.
        expect((await survivor.listOrphaned!()).map((e) => e.id)).toEqual(['exe_a']);
        expect(await other.listOrphaned!()).toEqual([]);
        await survivor.finishExecution('exe_a', { status: 'succeeded', outcome: 'reached the cluster' }, T);
        expect(await survivor.listOrphaned!()).toEqual([]);
        expect((await other.get(requestId))?.status).toBe('executed');
      } finally {
        await Promise.all([a, b, c].map((store) => store!.close()));
      }
    });
  });

  describe('migrations', () => {
    it("create exactly the columns of the shared row codec (rows.ts), plus the replicas' bookkeeping", async () => {
      const pool = new pg.Pool({ connectionString: await server().newDatabase() });
      try {
        await migrate(pool);
        const columns = async (table: string) =>
          (
            await pool.query(
              `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`,
              [table],
            )
          ).rows
            .map((row) => String(row.column_name))
            .sort();
        expect(await columns('approval_requests')).toEqual(
          [...REQUEST_COLUMNS, ...REQUEST_LATER_COLUMNS, 'expiry_unreported'].sort(),
        );
        expect(await columns('executions')).toEqual(
          [
            ...executionColumns('authorized_by'),
            ...EXECUTION_LATER_COLUMNS,
            'seq',
            'owner_key',
            'reconciling',
          ].sort(),
        );
      } finally {
        await pool.end();
      }
    });

    it('applies the numbered migrations once, even when several replicas start together, and keeps requests across reopen', async () => {
      const url = await server().newDatabase();
      const stores = await Promise.all([1, 2, 3].map(() => openPostgresStore({ url })));
      const { request } = await stores[0]!.createOrReusePending(
        newRequest(),
        new Date('2025-01-31T02:10:00.000Z'),
      );
      await Promise.all(stores.map((store) => store.close()));
      const pool = new pg.Pool({ connectionString: url });
      const versions = (await pool.query('SELECT version FROM sentinel_migrations ORDER BY version')).rows;
      expect(versions.map((row) => row.version)).toEqual(shippedMigrations().map((m) => m.version));
      expect(await migrate(pool)).toEqual([]);
      await pool.end();
      const reopened = await openPostgresStore({ url });
      expect(await reopened.get(request.id)).toEqual(request);
      await reopened.close();
    });

    it('refuses a database written by a newer Sentinel, and rolls back a failing migration whole', async () => {
      const url = await server().newDatabase();
      const pool = new pg.Pool({ connectionString: url });
      await migrate(pool);
      await expect(
        migrate(pool, [
          ...shippedMigrations(),
          { version: 9, name: '0009_broken', sql: 'CREATE TABLE x (a int); SELECT nope' },
        ]),
      ).rejects.toThrow(/nope/);
      expect((await pool.query(`SELECT to_regclass('x') AS t`)).rows[0].t).toBeNull();
      await pool.query(`INSERT INTO sentinel_migrations (version, name) VALUES (99, 'future')`);
      await pool.end();
      await expect(openPostgresStore({ url })).rejects.toThrow(
        /schema version 99, newer than this Sentinel knows/,
      );
    });
  });
});
