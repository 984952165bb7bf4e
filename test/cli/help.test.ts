/**
 * Every command's `--help`, as a snapshot: the command line registers its commands from light
 * modules and loads each command's implementation when it runs (test/cli/start-up.test.ts), and the
 * help text must not change with that. A deliberate change to a description or option updates the
 * snapshot: `npx vitest run test/cli/help.test.ts -u`, and review the diff.
 */
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../cli/program.ts';
import { ROOT } from '../helpers/loads.ts';

/** `[path, help]` of `command` and every subcommand below it, depth first, unwrapped. */
function helpTexts(command: Command, path: string[] = [command.name()]): [string, string][] {
  // No wrapping: the clone's path (shown in defaults) must not move line breaks.
  command.configureHelp({ helpWidth: 1000 });
  return [
    [path.join(' '), command.helpInformation().replaceAll(ROOT, '<clone>/')],
    ...command.commands.flatMap((sub) => helpTexts(sub, [...path, sub.name()])),
  ];
}

describe('sentinel --help', () => {
  const texts = helpTexts(buildProgram());

  it('covers every command and subcommand', () => {
    expect(texts.map(([path]) => path)).toContain('sentinel approvals list');
    expect(texts.length).toBeGreaterThan(20);
  });

  it.each(texts)('%s', (_path, help) => {
    expect(help).toMatchSnapshot();
  });
});
