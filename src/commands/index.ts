/**
 * Every command's wiring, registered on the program. Wiring modules are light (options and
 * help); each loads its handler with a dynamic import when it runs.
 */
import type { Command } from 'commander';
import type { App } from '../runtime/app.js';
import { registerApi } from './api/command.js';
import { registerDedupe } from './dedupe/command.js';
import { registerEnroll } from './enroll/command.js';
import { registerAuth } from './auth/command.js';
import { registerCompletion } from './completion/command.js';
import { registerResourceCommands } from './resource-commands/command.js';
import { registerReport } from './report/command.js';
import { registerResources } from './resources/command.js';
import { registerRuns } from './runs/command.js';
import { registerSandbox } from './sandbox/command.js';
import { registerSchema } from './schema/command.js';
import { registerSql } from './sql/command.js';
import { registerSync } from './sync/command.js';
import { registerLimits } from './limits/command.js';
import { registerSettings } from './config/command.js';
import { registerWebhookCommands } from './webhooks/command.js';
import { registerEventCommands } from './events/command.js';

/** Registers all commands, resource commands last so that fixed names win. */
export function registerCommands(program: Command, app: App): void {
  registerResources(program, app);
  registerApi(program, app);
  registerEnroll(program, app);
  registerAuth(program, app);
  registerSettings(program, app);
  registerSandbox(program, app);
  registerSchema(program, app);
  registerSync(program, app);
  registerLimits(program, app);
  registerSql(program, app);
  registerDedupe(program, app);
  registerReport(program, app);
  registerRuns(program, app);
  registerResourceCommands(program, app);
  registerWebhookCommands(program, app);
  registerEventCommands(program, app);
  registerCompletion(program, app);
}
