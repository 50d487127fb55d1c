/**
 * The PostgreSQL schemas this test file named with `freshSchema` (./postgres.ts), dropped when
 * the file ends (./temp-cleanup.ts), as its temporary directories are, and the variable naming
 * the test server. Apart from postgres.ts so that the set-up file of every test file, and the
 * suite's global set-up (./pg-sweep.ts), load `pg` only when there is a server to clean.
 */
export const madeSchemas: string[] = [];

/** The variable that names the test server. */
export const PG_VAR = 'SVC_TEST_PG';
