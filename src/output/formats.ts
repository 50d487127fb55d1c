/**
 * The output formats of `-o`, in a module of their own: the command line is checked at start-up
 * without loading the renderers.
 */
export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'raw'] as const;

/** One of {@link OUTPUT_FORMATS}. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
