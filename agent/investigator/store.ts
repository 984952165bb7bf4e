/**
 * Investigations on disk: one JSON file per investigation in `<data-dir>/investigations/`, written
 * whole (write to a temporary file, then rename) so a process killed mid-save leaves the previous
 * version, never half a file. Any process with the same data directory can resume one.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromZod, SentinelError } from '../../core/index.ts';
import { InvestigationIdSchema, InvestigationSchema, type Investigation } from './model.ts';

/** `<data-dir>/investigations`. */
export function investigationsDir(dataDir: string): string {
  return join(dataDir, 'investigations');
}

export interface InvestigationStore {
  readonly dir: string;
  /** Saves the record (stamping `updated_at`), replacing the previous version atomically. */
  save(investigation: Investigation): void;
  /**
   * Loads an investigation. Throws `SentinelError`: `invalid_input` (field `resume`) for a malformed
   * id or a file that is not a valid investigation; `not_found` when there is none with that id.
   */
  load(id: string): Investigation;
  /** Ids of the saved investigations, sorted. */
  list(): string[];
}

/** Opens the store in `dataDir` (created on first save, owner-only: records quote cluster output). */
export function openInvestigationStore(
  dataDir: string,
  now: () => Date = () => new Date(),
): InvestigationStore {
  const dir = investigationsDir(dataDir);
  const file = (id: string) => join(dir, `${id}.json`);
  return {
    dir,
    save(investigation) {
      investigation.updated_at = now().toISOString();
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const target = file(investigation.id);
      const temporary = `${target}.${process.pid}.tmp`;
      writeFileSync(temporary, `${JSON.stringify(investigation, null, 2)}\n`, { mode: 0o600 });
      renameSync(temporary, target);
    },
    load(id) {
      const parsedId = InvestigationIdSchema.safeParse(id);
      if (!parsedId.success) {
        throw fromZod(parsedId.error, [], {
          field: 'resume',
          message: (_lines, [first]) => `--resume '${id}': ${first?.rule}.`,
        });
      }
      let text: string;
      try {
        text = readFileSync(file(id), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          throw new SentinelError(
            'not_found',
            `No investigation ${id} in ${dir}; check the id, and pass the same --data-dir as the run that started it.`,
            { field: 'resume' },
          );
        }
        throw new SentinelError('unavailable', `Cannot read ${file(id)}: ${(error as Error).message}.`, {
          cause: error,
        });
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (error) {
        throw new SentinelError('invalid_input', `${file(id)} is not valid JSON; it cannot be resumed.`, {
          field: 'resume',
          cause: error,
        });
      }
      const parsed = InvestigationSchema.safeParse(json);
      if (!parsed.success) {
        throw fromZod(parsed.error, [], {
          field: 'resume',
          message: (lines) => `${file(id)} is not a valid investigation (${lines}); it cannot be resumed.`,
        });
      }
      return parsed.data;
    },
    list() {
      try {
        return readdirSync(dir)
          .filter((name) => /^inv_[0-9a-f]{16}\.json$/.test(name))
          .map((name) => name.slice(0, -'.json'.length))
          .sort();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
    },
  };
}
