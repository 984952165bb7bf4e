/**
 * Public entry of the agent module: what other modules may import (lint forbids deep imports).
 */

// The contract other modules use (added with the module-boundary lint rule).
export { harnessClient } from './harness/connection.ts';
export type { HarnessConnectionOptions } from './harness/connection.ts';
export { harnessToken, harnessTokenFile } from './harness/harness-identity.ts';
export { investigateWithHarness } from './harness/investigate-harness.ts';
export type { HarnessInvestigateCliOptions } from './harness/investigate-harness.ts';
export { HARNESS_IDENTITY } from './harness/names.ts';
export { registerWithHarness } from './harness/register.ts';
export { DEFAULT_DEMO_SCENARIO, DemoInterrupted, runDemo } from './investigator/demo.ts';
export { evaluateScenario, renderEvalTable, scenarioFiles } from './investigator/eval.ts';
export type { EvalResult } from './investigator/eval.ts';
export { checkNewInvestigation, investigateLocally, succeeded } from './investigator/investigate-local.ts';
export type { LocalInvestigateCliOptions } from './investigator/investigate-local.ts';
export { guardTerminalOutput } from './terminal-guard.ts';
export { colorsEnabled, disableColors, palette, type Palette, type Style } from './colors.ts';

// The contract other modules use (added with the module-boundary lint rule).
export { fullyCorrect } from './investigator/eval.ts';

// The contract other modules use (added with the module-boundary lint rule). sentinelCommand lives
// in core/ (the TrueForge client names the CLI in its hints too); re-exported for the command line.
export { sentinelCommand } from '../core/index.ts';
export {
  exitQuietlyOnBrokenPipe,
  whenOutputCloses,
  outputClosed,
  OUTPUT_CLOSED_EXIT_CODE,
} from './broken-pipe.ts';
export { interruptedLines } from './investigator/interrupted.ts';
export { openInvestigationStore } from './investigator/store.ts';
export type { Investigation } from './investigator/model.ts';

// For bench/investigate.ts: one investigation against a simulator with its own audit log.
export { startLocalServer } from './investigator/local-server.ts';
export { runLocalInvestigation } from './investigator/session.ts';
