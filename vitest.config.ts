import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Two cores: forks keep native handles (sockets, sqlite) isolated per file.
    pool: 'forks',
    // Generous on purpose: a shared 2-core machine under load is slow, and a test must never fail
    // for that (tight timeouts failed `npm test` for a new user). Tests assert behaviour, not speed.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    // Tests never reach the network; nock and the simulator are loopback only.
    // FORCE_COLOR=0: no colours whatever the shell or CI sets; tests of colours set FORCE_COLOR themselves.
    env: { SENTINEL_LOG_LEVEL: 'silent', FORCE_COLOR: '0' },
    // Screenshots and other files tests attach (`context.annotate`), kept with the other results.
    attachmentsDir: 'test-results/attachments',
  },
});
