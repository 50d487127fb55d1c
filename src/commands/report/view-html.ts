import type { ReportView } from './model.js';
export function renderHtml(view: ReportView, _at: Date): string {
  return JSON.stringify(view);
}
