/**
 * Light entry of the agent module: what the launcher and the command line need before a command
 * runs (the terminal guard, broken-pipe handling, the y/N prompter, how hints name the CLI, the harness identity's
 * name), loading none of the investigators, the harness client or the server. Everything here is
 * also exported by index.ts.
 */
export {
  exitQuietlyOnBrokenPipe,
  whenOutputCloses,
  outputClosed,
  OUTPUT_CLOSED_EXIT_CODE,
} from './broken-pipe.ts';
export { colorsEnabled, disableColors, palette, type Palette, type Style } from './colors.ts';
export { sentinelCommand } from '../core/light.ts';
export { HARNESS_IDENTITY } from './harness/names.ts';
export { terminalPrompter, type ApprovalPrompter, type PromptOptions } from './harness/prompter.ts';
export { guardTerminalOutput } from './terminal-guard.ts';
export {
  askTypedConfirmation,
  quotedAnswer,
  type TypedAnswer,
  type TypedConfirmation,
} from './typed-confirmation.ts';
