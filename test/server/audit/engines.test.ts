import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { AUDIT_FILE, openAuditLog } from '../../../server/audit/index.ts';
import { asyncAuditLog } from '../../../server/audit/async-log.ts';
import { openPostgresAuditLog } from '../../../server/audit/postgres.ts';
import { describeWithPostgres } from '../../helpers/postgres.ts';
import { tempDataDir } from '../../helpers/server.ts';
import { describeAuditLogContract } from './contract.ts';

describeAuditLogContract('SQLite', async () => {
  const { dir, cleanup } = tempDataDir();
  const raw = (fn: (db: DatabaseSync) => void) => {
    const db = new DatabaseSync(join(dir, AUDIT_FILE));
    try {
      fn(db);
    } finally {
      db.close();
    }
  };
  return {
    open: async () => asyncAuditLog(openAuditLog(dir)),
    exec: async (sql) => raw((db) => db.exec(sql)),
    refuseInserts: async (marker) =>
      raw((db) =>
        db.exec(
          `CREATE TRIGGER audit_log_refuse BEFORE INSERT ON audit_log WHEN instr(NEW.json, '${marker}') > 0
             BEGIN SELECT RAISE(ABORT, 'insert refused by the test'); END;`,
        ),
      ),
    tamper: async (sql, params = []) =>
      raw((db) => {
        db.exec('DROP TRIGGER IF EXISTS audit_log_no_update; DROP TRIGGER IF EXISTS audit_log_no_delete;');
        db.prepare(sql).run(...params);
      }),
    cleanup: async () => cleanup(),
  };
});

describeWithPostgres('PostgreSQL audit log', (server) => {
  describeAuditLogContract('PostgreSQL', async () => {
    const url = await server().newDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const numbered = (sql: string) => {
      let i = 0;
      return sql.replace(/\?/g, () => `$${(i += 1)}`);
    };
    return {
      open: () => openPostgresAuditLog({ url }),
      exec: async (sql) => {
        await pool.query(sql);
      },
      refuseInserts: async (marker) => {
        await pool.query(`CREATE FUNCTION audit_log_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF strpos(NEW.json, '${marker}') > 0 THEN RAISE EXCEPTION 'insert refused by the test'; END IF;
            RETURN NEW;
          END $$`);
        await pool.query(
          'CREATE TRIGGER audit_log_refuse BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_refuse()',
        );
      },
      tamper: async (sql, params = []) => {
        await pool.query('ALTER TABLE audit_log DISABLE TRIGGER USER');
        await pool.query(numbered(sql), params);
      },
      cleanup: () => pool.end(),
    };
  });
});
