/**
 * What `svc login` parses from its options, in a file of its own: command.ts wires them and
 * login.ts reads them, and neither imports the other (a type in command.ts made the circles).
 */
export interface LoginFlags {
  clientId?: string;
  clientSecret?: string;
  scopes?: string;
  port?: string;
  /** false with `--no-browser`. */
  browser: boolean;
  pkce?: boolean;
  withToken?: boolean;
  loginTimeout?: string;
}
