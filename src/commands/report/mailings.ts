import type { Context } from '../../cli/context.js';
import type { ReportFlags } from './shared.js';
export async function mailingsReport(_ctx: Context, _flags: ReportFlags): Promise<void> {}
