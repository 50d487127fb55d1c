/**
 * The PostgreSQL schemas this test file named with `freshSchema` (./postgres.ts), dropped when
 * the file ends (./temp-cleanup.ts), as its temporary directories are. Apart from postgres.ts so
 * that the set-up file of every test file loads `pg` only for the files that made a schema.
 */
export const madeSchemas: string[] = [];
