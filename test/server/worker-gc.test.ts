import { describe, expect, it } from 'vitest';
import { SINGLE_THREADED_GC_FLAG, workerExecArgv } from '../../server/worker-gc.ts';

describe('workerExecArgv', () => {
  const base = ['--import', 'data:text/javascript,void 0'];

  it('adds --single-threaded-gc when the workers take every core', () => {
    expect(workerExecArgv(2, { cores: 2, execArgv: base, nodeOptions: '' })).toEqual([
      ...base,
      SINGLE_THREADED_GC_FLAG,
    ]);
    expect(workerExecArgv(4, { cores: 2, execArgv: [], nodeOptions: '' })).toEqual([SINGLE_THREADED_GC_FLAG]);
  });

  it('leaves the flags alone when a core is left to the helper threads', () => {
    expect(workerExecArgv(2, { cores: 4, execArgv: base, nodeOptions: '' })).toEqual(base);
  });

  it.each([
    ['--no-single-threaded-gc', ''],
    ['--single_threaded', ''],
    ['--parallel-scavenge', ''],
    ['--no-concurrent-marking', ''],
    ['', '--v8-pool-size=4'],
    ['', '--max-old-space-size=512 --single-threaded-gc'],
  ])("keeps the operator's GC choice (execArgv %j, NODE_OPTIONS %j)", (flag, nodeOptions) => {
    const execArgv = flag ? [flag] : [];
    expect(workerExecArgv(2, { cores: 2, execArgv, nodeOptions })).toEqual(execArgv);
  });

  it('does not change the array it was given', () => {
    const execArgv = [...base];
    workerExecArgv(2, { cores: 2, execArgv, nodeOptions: '' });
    expect(execArgv).toEqual(base);
  });
});
