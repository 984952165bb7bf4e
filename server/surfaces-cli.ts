/**
 * CLI registrar of the approver surfaces and evidence: `sentinel approvals ...` and `sentinel audit ...`.
 */
import type { Command } from 'commander';
import { registerApprovalsCommands } from './approvals-cli.ts';
import { registerAuditCommands } from './audit/cli.ts';

export function registerSurfacesCommands(program: Command): void {
  registerApprovalsCommands(program);
  registerAuditCommands(program);
}
