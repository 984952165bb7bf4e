/**
 * The modules' light entries (`<module>/light.ts`: what the command line needs to register its
 * commands) load no zod or heavier package, and the server's client entry (`server/client.ts`: what
 * the client commands run) loads none of the server runtime. Checked on what a process importing
 * each one loads, so a new import that drags a heavy module into start-up fails here.
 */
import { describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { loadsOf, packagesOf, ROOT } from './helpers/loads.ts';

const importing = (path: string) => [
  '-e',
  `await import(${JSON.stringify(pathToFileURL(`${ROOT}${path}`).href)})`,
];

describe('light entries', () => {
  it.each([
    'core/light.ts',
    'tools/light.ts',
    'server/light.ts',
    'agent/light.ts',
    'agent-spec/light.ts',
    'deploy/light.ts',
  ])('%s loads no package but fastest-levenshtein, and no index.ts', async (entry) => {
    const result = await loadsOf(importing(entry));
    expect(result.code, result.stderr).toBe(0);
    expect(result.loaded).toContain(entry);
    expect(packagesOf(result.loaded).filter((name) => name !== 'fastest-levenshtein')).toEqual([]);
    expect(result.loaded.filter((path) => path.endsWith('/index.ts'))).toEqual([]);
  });

  it('server/client.ts loads none of the server runtime, tools or agent', async () => {
    const result = await loadsOf(importing('server/client.ts'));
    expect(result.code, result.stderr).toBe(0);
    const packages = packagesOf(result.loaded);
    for (const name of [
      '@kubernetes/client-node',
      '@modelcontextprotocol/sdk',
      'express',
      'pino',
      'prom-client',
    ])
      expect(packages).not.toContain(name);
    for (const module of ['server/index.ts', 'tools/index.ts', 'agent/index.ts'])
      expect(result.loaded).not.toContain(module);
  });

  it('exports from each light entry what its index.ts exports, the same values', async () => {
    for (const module of ['core', 'tools', 'server', 'agent', 'agent-spec', 'deploy']) {
      const light = (await import(`../${module}/light.ts`)) as Record<string, unknown>;
      const index = (await import(`../${module}/index.ts`)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(light))
        expect(index[name], `${module}: ${name}`).toBe(value);
    }
    const client = (await import('../server/client.ts')) as Record<string, unknown>;
    const index = (await import('../server/index.ts')) as Record<string, unknown>;
    for (const [name, value] of Object.entries(client)) expect(index[name], `server: ${name}`).toBe(value);
  });
});
