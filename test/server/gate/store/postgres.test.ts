import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../../../server/gate/store/postgres.ts';
import { migrate, shippedMigrations } from '../../../../server/postgres/migrate.ts';
import { describeWithPostgres } from '../../../helpers/postgres.ts';
import { describeApprovalStoreContract, newRequest } from './contract.ts';

describeWithPostgres('PostgreSQL approval store', (server) => {
  describeApprovalStoreContract('PostgreSQL', async () =>
    openPostgresStore({ url: await server().newDatabase() }),
  );

  describe('migrations', () => {
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
