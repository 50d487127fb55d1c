/**
 * What a command's API needs besides the client, behind one `import()`: the config store, the
 * connection and the shared rate budget (with its gate and file ledger). A command that asks for
 * one of them nearly always asks for the others; loaded apart they were six chunks.
 */
// Performance machinery (src/README.md, Build): one import() target for the API's services.
export { confOptions, createConfigStore } from '../auth/config-file.js';
export { resolveConnection } from './connection.js';
export { openLedger, openRateBudget } from './rate-budget.js';
