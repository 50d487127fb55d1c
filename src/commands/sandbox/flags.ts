/**
 * What `svc sandbox` parses from its options, in a file of its own: command.ts wires them and
 * the handlers read them, and neither imports the other (a type in command.ts made the circles).
 */
export interface SandboxFlags {
  host: string;
  port?: string;
  data?: string;
  seed?: string;
  duplicates?: string;
  latency?: string;
  rateLimit?: string;
  tokenInterval?: string;
  maintenanceUntil?: string;
  fromProfile?: string;
  sample?: string;
  filter?: string[];
  keepDomains?: boolean;
  /** False with `--no-anonymise`. */
  anonymise?: boolean;
  budget?: string;
}
