/**
 * Public entry of the deploy module: what other modules may import (lint forbids deep imports).
 */

// The contract other modules use (added with the module-boundary lint rule).
export { SimulatedCluster } from './sim/cluster.ts';
export { SCENARIOS_DIR, listScenarios, startSimulator } from './sim/index.ts';
export type { ExpectedOutcome, MutationRecord, Scenario, Simulator } from './sim/index.ts';
export { generateScenario } from './sim/scenario/generate.ts';
export { parseScenario } from './sim/scenario/load.ts';
