/**
 * Byte-exact verification must never flag an untouched log: for arbitrary JSON in the free-form
 * fields (arguments, reasons, messages — any string, lone surrogates and control characters
 * included), a record appended and read back verifies intact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openAuditLog, type AuditLog } from '../../../server/audit/index.ts';
import { auditEntry } from '../../helpers/audit.ts';
import { tempDataDir } from '../../helpers/server.ts';

describe('canonical stored text', () => {
  const data = tempDataDir();
  let log: AuditLog;
  beforeAll(() => {
    log = openAuditLog(data.dir);
  });
  afterAll(() => {
    log.close();
    data.cleanup();
  });

  it('verifies an untouched record whose arguments carry an own __proto__ key (found by the property)', () => {
    const args = JSON.parse('{"__proto__":9.4e-323,"namespace":"shop"}') as Record<string, unknown>;
    log.append(auditEntry({ arguments: args }));
    expect(log.verify().broken).toBeUndefined();
  });

  it('round-trips arbitrary values, so an untouched log always verifies', () => {
    const text = fc.string({ unit: 'binary' });
    fc.assert(
      fc.property(fc.dictionary(text, fc.jsonValue({ maxDepth: 3 })), text, text, (args, reason, message) => {
        log.append(auditEntry({ arguments: args, reason, error: { code: 'failed', message } }));
        return log.verify().broken === undefined;
      }),
      { numRuns: 100 },
    );
    expect(log.verify().broken).toBeUndefined();
  });
});
