import { describe, expect, it } from 'vitest';
import { parseServeOptions } from '../../server/config.ts';
import { isPostgresUrl, redactUrl } from '../../server/postgres/url.ts';
import { startServe } from '../../server/serve.ts';
import { tempDataDir } from '../helpers/server.ts';

describe('sentinel serve --store', () => {
  it('accepts a postgres:// or postgresql:// URL and refuses anything else, naming the flag', () => {
    expect(parseServeOptions({ store: 'postgres://u:p@db:5432/sentinel' }).store).toBe(
      'postgres://u:p@db:5432/sentinel',
    );
    expect(parseServeOptions({ store: 'postgresql://db/sentinel' }).store).toBe('postgresql://db/sentinel');
    expect(parseServeOptions({}).store).toBeUndefined();
    expect(() => parseServeOptions({ store: 'mysql://db/sentinel' })).toThrow(
      /^--store: must be a postgres:\/\/ URL/,
    );
    expect(isPostgresUrl('sqlite:///x')).toBe(false);
  });

  it('refuses a SENTINEL_STORE_URL that is not a postgres:// URL before starting anything', async () => {
    const data = tempDataDir();
    try {
      await expect(
        startServe(parseServeOptions({ port: 0, dataDir: data.dir }), {
          stderr: () => {},
          env: { SENTINEL_STORE_URL: 'file:///tmp/x.db' },
        }),
      ).rejects.toThrow(/SENTINEL_STORE_URL: must be a postgres:\/\/ URL/);
    } finally {
      data.cleanup();
    }
  });

  it('never shows the password of a store URL', () => {
    expect(redactUrl('postgres://sentinel:s3cret@db:5432/sentinel')).toBe(
      'postgres://sentinel:***@db:5432/sentinel',
    );
  });
});
