import type { Context } from '../../cli/context.js';
import type { ReportFlags } from './shared.js';
export async function funnelReport(_ctx: Context, _id: string, _flags: ReportFlags): Promise<void> {}
