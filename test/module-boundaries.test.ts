import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('..', import.meta.url).pathname });

/**
 * The module-boundary messages ESLint gives `code` as if it were the file at `filePath`: static
 * imports (`no-restricted-imports`) and dynamic `import()`s (`no-restricted-syntax`).
 */
async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter(
      (m) =>
        m.ruleId === 'no-restricted-imports' ||
        m.ruleId === '@typescript-eslint/no-restricted-imports' ||
        m.ruleId === 'no-restricted-syntax',
    )
    .map((m) => m.message);
}

describe('module boundaries (eslint.config.js)', () => {
  it('refuses a deep import into another top-level module, and names the way out', async () => {
    const messages = await restricted(
      'server/example.ts',
      "import { defineTool } from '../tools/define-tool.ts';\nexport const tool = defineTool;\n",
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/through its index\.ts/);
    expect(
      await restricted(
        'agent/harness/example.ts',
        "import { x } from '../../server/gate/approvals.ts';\nexport const y = x;\n",
      ),
    ).toHaveLength(1);
    expect(
      await restricted(
        'server/gate/example.ts',
        "import { HarnessHttp } from '../../trueforge/http.ts';\nexport const c = HarnessHttp;\n",
      ),
    ).toHaveLength(1);
  });

  it('allows a module’s index.ts, imports inside a module, and deep imports from test/', async () => {
    expect(
      await restricted(
        'server/gate/example.ts',
        "import { allTools } from '../../tools/index.ts';\nexport const t = allTools;\n",
      ),
    ).toEqual([]);
    expect(
      await restricted(
        'server/gate/example.ts',
        "import { x } from '../audit/record.ts';\nexport const y = x;\n",
      ),
    ).toEqual([]);
    expect(
      await restricted(
        'test/server/example.test.ts',
        "import { x } from '../../tools/kube/types.ts';\nexport const y = x;\n",
      ),
    ).toEqual([]);
  });

  it('refuses a deep dynamic import() into another top-level module, lazy ones included', async () => {
    const messages = await restricted(
      'cli/example.ts',
      "export const load = () => import('../agent/investigator/demo.ts');\n",
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/through its index\.ts.*dynamic import\(\) too/);
    expect(
      await restricted(
        'agent/harness/example.ts',
        "export const load = async () => (await import('../../server/gate/approvals.ts')).x;\n",
      ),
    ).toHaveLength(1);
    expect(await restricted('bin/example.js', "await import('../cli/program.ts');\n")).toHaveLength(1);
  });

  it('allows a dynamic import() of an index.ts, inside a module, of a computed path, and from test/', async () => {
    expect(
      await restricted('cli/example.ts', "export const load = () => import('../agent/index.ts');\n"),
    ).toEqual([]);
    expect(
      await restricted(
        'server/gate/example.ts',
        "export const load = () => import('./store/postgres.ts');\n",
      ),
    ).toEqual([]);
    expect(
      await restricted('cli/example.ts', 'export const load = (path: string) => import(path);\n'),
    ).toEqual([]);
    expect(
      await restricted(
        'test/server/example.test.ts',
        "export const load = () => import('../../tools/kube/types.ts');\n",
      ),
    ).toEqual([]);
  });

  it('allows a module’s light.ts and client.ts entries, statically and dynamically', async () => {
    expect(
      await restricted(
        'agent/example.ts',
        "import { DEFAULT_SERVER_URL } from '../server/light.ts';\nexport const u = DEFAULT_SERVER_URL;\n",
      ),
    ).toEqual([]);
    expect(
      await restricted('cli/example.ts', "export const load = () => import('../server/client.ts');\n"),
    ).toEqual([]);
    expect(
      await restricted('server/example.ts', "import { x } from '../tools/lite.ts';\nexport const y = x;\n"),
    ).toHaveLength(1);
  });

  it('keeps the command line lazy: a static import of an index.ts or client.ts in cli/ is types only', async () => {
    const messages = await restricted(
      'cli/example.ts',
      "import { startServe } from '../server/index.ts';\nexport const s = startServe;\n",
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/only when a command runs.*light\.ts/);
    expect(
      await restricted(
        'cli/example.ts',
        "import { createApprovalsClient } from '../server/client.ts';\nexport const c = createApprovalsClient;\n",
      ),
    ).toHaveLength(1);
    expect(
      await restricted(
        'cli/example.ts',
        "import type { RunningServer } from '../server/index.ts';\nexport type S = RunningServer;\n",
      ),
    ).toEqual([]);
    expect(
      await restricted(
        'cli/example.ts',
        "import { LOCAL_IDENTITY_NAME } from '../server/light.ts';\nexport const n = LOCAL_IDENTITY_NAME;\n",
      ),
    ).toEqual([]);
    // Outside cli/ an index.ts stays the normal way in.
    expect(
      await restricted(
        'agent/example.ts',
        "import { startServe } from '../server/index.ts';\nexport const s = startServe;\n",
      ),
    ).toEqual([]);
  });
});
