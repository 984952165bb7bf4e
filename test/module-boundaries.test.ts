import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('..', import.meta.url).pathname });

/** The `no-restricted-imports` messages ESLint gives `code` as if it were the file at `filePath`. */
async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
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
});
