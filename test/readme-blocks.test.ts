/**
 * The README's shell blocks, run in order on a fresh clone (issue 18: "every command in the README,
 * run in order on a fresh clone, does what the README says"). Every ```sh block carries a marker on
 * the line before it:
 *
 *   <!-- readme-test: run -->                 each command runs, in order, and must do what its
 *                                             expectation below says (a command without one fails)
 *   <!-- readme-test: skip: <reason> -->      not run here, and the reason says why (a real
 *                                             cluster, a harness, the suite itself, …)
 *
 * The clone is `git clone` of this checkout's HEAD (what a new user gets) with this checkout's
 * node_modules linked in (what `npm ci` would install), HOME a scratch directory (so `~/.sentinel`
 * is scratch), and servers on ephemeral ports. No timing is asserted: commands get minutes.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyKeySchema } from '../server/tool-input.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

interface Block {
  /** 1-based line of the opening fence. */
  line: number;
  mode: 'run' | 'skip';
  reason: string;
  /** The commands, comments and continuation lines folded (`\` at the end joins the next line). */
  commands: string[];
}

/** Every ```sh block of `markdown` with its marker; throws naming a block without one. */
export function shellBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```sh') continue;
    let end = i + 1;
    while (end < lines.length && lines[end]!.trim() !== '```') end++;
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const marker = /^<!-- readme-test: (run|skip: (.+?)) -->$/.exec(lines[before]?.trim() ?? '');
    if (!marker) throw new Error(`README.md:${i + 1}: a sh block without a <!-- readme-test: … --> marker`);
    const commands: string[] = [];
    let pending = '';
    for (const raw of lines.slice(i + 1, end)) {
      const text = raw
        .replace(/\s+#(?![^'"]*['"][^'"]*$).*$/, '')
        .replace(/^#.*$/, '')
        .trimEnd();
      if (text.trim() === '') continue;
      if (text.endsWith('\\')) {
        pending += `${text.slice(0, -1).trim()} `;
        continue;
      }
      commands.push(`${pending}${text.trim()}`);
      pending = '';
    }
    blocks.push({
      line: i + 1,
      mode: marker[1] === 'run' ? 'run' : 'skip',
      reason: marker[2] ?? '',
      commands,
    });
    i = end;
  }
  return blocks;
}

interface Ran {
  status: number;
  stdout: string;
  stderr: string;
}

let scratch: string;
let clone: string;
let env: NodeJS.ProcessEnv;
let server: ChildProcess | undefined;
/** What the runs so far left for later commands to check (tokens printed, …). */
const seen: Record<string, string> = {};

/** Runs `command` with bash in the clone (as the README's reader would), never with a time limit. */
function run(command: string): Ran {
  try {
    const stdout = execFileSync('bash', ['-o', 'pipefail', '-c', command], {
      cwd: clone,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { status: 0, stdout, stderr: '' };
  } catch (error) {
    const failed = error as { status: number | null; stdout: string; stderr: string };
    return { status: failed.status ?? 1, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1) ?? '';
const dataDir = () => join(scratch, 'home', '.sentinel');

/** What each command run must do: what the README's text (or comment) says about it. */
const EXPECTATIONS: Record<string, (ran: Ran) => void> = {
  'npx sentinel tokens add alice --role approver': (ran) => {
    expect(ran.status).toBe(0);
    // "the new token is the last line of stdout, shown once"
    seen.alice = lastLine(ran.stdout);
    expect(seen.alice).toMatch(/^\S{20,}$/);
  },
  'npx sentinel tokens add ci-bot --role caller': (ran) => {
    expect(ran.status).toBe(0);
    seen.ciBot = lastLine(ran.stdout);
    expect(seen.ciBot).toMatch(/^\S{20,}$/);
  },
  'npx sentinel tokens list': (ran) => {
    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(/alice.*approver/);
    expect(ran.stdout).toMatch(/ci-bot.*caller/);
    // Names and roles only: never a token.
    expect(ran.stdout).not.toContain(seen.alice);
  },
  'npx sentinel tokens revoke ci-bot': (ran) => {
    expect(ran.status).toBe(0);
    expect(run('npx sentinel tokens list').stdout).not.toContain('ci-bot');
  },
  'npx sentinel tokens rotate alice': (ran) => {
    expect(ran.status).toBe(0);
    // "a new token (last line of stdout); the old one stops working"
    const rotated = lastLine(ran.stdout);
    expect(rotated).toMatch(/^\S{20,}$/);
    expect(rotated).not.toBe(seen.alice);
    seen.alice = rotated;
  },
  'npx sentinel tokens rotate local': (ran) => {
    expect(ran.status).toBe(0);
    // "a new <data-dir>/local.token"
    const token = readFileSync(join(dataDir(), 'local.token'), 'utf8').trim();
    expect(token).not.toBe(seen.local ?? '');
    seen.local = token;
  },
  [`npx sentinel policy test --tool scale_deployment --args '{"namespace":"shop","name":"web","replicas":0}'`]:
    (ran) => {
      // Scaling to 0 is never allowed without a human: the policy asks (or denies).
      expect(ran.stdout).toMatch(/\b(ask|deny)\b/);
      expect(ran.stdout).toMatch(/rule/i);
    },
  'npx sentinel freeze on --reason "change freeze until 18:00"': (ran) => {
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('change freeze until 18:00');
  },
  'npx sentinel freeze off': (ran) => {
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/not frozen|off|lifted/i);
  },
};

/** Starts `npx sentinel serve --port 0` in the clone (the freeze commands talk to a running server). */
async function startServer(): Promise<string> {
  const child = spawn('npx', ['sentinel', 'serve', '--port', '0'], {
    cwd: clone,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  server = child;
  let output = '';
  return new Promise((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /(http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(output)?.[1];
      if (url && !url.endsWith(':7070')) resolve(url);
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('exit', (code) => reject(new Error(`sentinel serve exited (${code}): ${output}`)));
  });
}

describe('README shell blocks, in order, on a fresh clone', { timeout: 900_000 }, () => {
  const blocks = shellBlocks(README);

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'sentinel-readme-'));
    clone = join(scratch, 'clone');
    execFileSync('git', ['clone', '--quiet', '--no-hardlinks', ROOT, clone]);
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
    mkdirSync(join(scratch, 'home'), { recursive: true });
    const node = dirname(process.execPath);
    env = {
      PATH: `${node}:${process.env.PATH ?? ''}`,
      HOME: join(scratch, 'home'),
      NO_COLOR: '1',
      SENTINEL_LOG_LEVEL: 'silent',
      LANG: 'C.UTF-8',
    };
  });
  afterAll(() => {
    if (server?.pid) process.kill(-server.pid, 'SIGTERM');
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('marks every block, and every skipped block says why', () => {
    expect(blocks.length).toBeGreaterThan(5);
    for (const block of blocks.filter((b) => b.mode === 'skip')) {
      expect(block.reason.length, `README.md:${block.line}`).toBeGreaterThan(10);
    }
    // The first two commands stay what a new user types.
    expect(blocks[0]!.commands).toEqual(['npm ci && npx sentinel demo', 'npm ci && npm test']);
  });

  it('runs every command of the runnable blocks, and each does what the README says', async () => {
    const runnable = blocks.filter((b) => b.mode === 'run');
    expect(runnable.length).toBeGreaterThanOrEqual(2);
    for (const block of runnable) {
      for (const command of block.commands) {
        const expectation = EXPECTATIONS[command];
        if (!expectation) throw new Error(`README.md:${block.line}: no expectation for \`${command}\``);
        if (command.startsWith('npx sentinel freeze') && !server) {
          env.SENTINEL_SERVER_URL = await startServer();
        }
        expectation(run(command));
      }
    }
    expect(existsSync(join(clone, 'kc')), 'nothing lands untracked in the clone').toBe(false);
    // (node_modules is this test's link, standing in for `npm ci`.)
    const untracked = run('git status --porcelain --ignored=no')
      .stdout.split('\n')
      .filter((line) => line !== '' && line !== '?? node_modules');
    expect(untracked).toEqual([]);
  });

  it('says what the tool schema says about idempotency_key', () => {
    const max = IdempotencyKeySchema.maxLength;
    expect(max).toBe(200);
    expect(README.replace(/\s+/g, ' ')).toContain(
      `optional \`idempotency_key\` (owned by the gate, at most ${max} characters)`,
    );
    expect(IdempotencyKeySchema.description).toContain(`at most ${max} characters`);
    expect(IdempotencyKeySchema.description).toContain('returns the first result');
    expect(README.replace(/\s+/g, ' ')).toContain('the same key returns the first result');
  });
});
