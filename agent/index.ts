/**
 * Public entry of the agent module: what other modules may import (lint forbids deep imports).
 */

// The light entry's exports (terminal guard, broken-pipe handling, colours, sentinelCommand, the
// harness identity's name, the terminal prompter) are listed once, in light.ts.
export * from './light.ts';

// The contract other modules use (added with the module-boundary lint rule).
export { harnessClient } from './harness/connection.ts';
export type { HarnessConnectionOptions } from './harness/connection.ts';
export { harnessToken, harnessTokenFile } from './harness/harness-identity.ts';
export { investigateWithHarness } from './harness/investigate-harness.ts';
export type { HarnessInvestigateCliOptions } from './harness/investigate-harness.ts';
export { registerWithHarness } from './harness/register.ts';
export { DEFAULT_DEMO_SCENARIO, DemoInterrupted, runDemo } from './investigator/demo.ts';
export { evaluateScenario, renderEvalTable, scenarioFiles } from './investigator/eval.ts';
export type { EvalResult } from './investigator/eval.ts';
export { checkNewInvestigation, investigateLocally, succeeded } from './investigator/investigate-local.ts';
export type { LocalInvestigateCliOptions } from './investigator/investigate-local.ts';

// The contract other modules use (added with the module-boundary lint rule).
export { fullyCorrect } from './investigator/eval.ts';

// The contract other modules use (added with the module-boundary lint rule).
export { interruptedLines } from './investigator/interrupted.ts';
export { openInvestigationStore } from './investigator/store.ts';
export type { Investigation } from './investigator/model.ts';

// For bench/investigate.ts: one investigation against a simulator with its own audit log.
export { startLocalServer } from './investigator/local-server.ts';
export { runLocalInvestigation } from './investigator/session.ts';
