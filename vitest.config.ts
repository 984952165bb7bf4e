import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Two cores: forks keep native handles (sockets, sqlite) isolated per file.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    // Tests never reach the network; nock and the simulator are loopback only.
    env: { SENTINEL_LOG_LEVEL: 'silent' },
  },
});
