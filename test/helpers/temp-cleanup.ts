/**
 * Set-up file of every test file (vitest.config.ts): the temporary directories a file made with
 * tempDir are removed once its own after-all hooks have stopped the sandboxes and processes
 * that used them (set-up hooks are registered first, so they run last).
 */
import { afterAll } from 'vitest';
import { removeTempDirs } from './run-svc.js';

afterAll(removeTempDirs);
