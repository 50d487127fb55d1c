/** The handlers of resource commands, loaded together when one runs. */
export { listHandler, getHandler } from './read-handlers.js';
export { createHandler, updateHandler, deleteHandler, actionHandler } from './write-handlers.js';
