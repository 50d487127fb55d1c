/**
 * svc's commander Command: every command the program makes through `.command()` or
 * `createCommand` is one. It adds what commander's own near-miss suggestion cannot find: an
 * option another svc command spells for the same thing (`prospects create --input x --plan` said
 * only "unknown option '--plan'"; its preview is the global --dry-run; `export --fields` has
 * `--columns`).
 */
import { Command } from 'commander';

/** An option and the one svc has for the same purpose where the first is not offered. */
const SAME_PURPOSE: Record<string, string> = { '--plan': '--dry-run', '--dry-run': '--plan', '--fields': '--columns' };

export class SvcCommand extends Command {
  override createCommand(name?: string): Command {
    return new SvcCommand(name);
  }

  /** commander's own (its types leave it out): called for an option the command line's commands do not offer. */
  unknownOption(flag: string): never {
    const other = SAME_PURPOSE[flag];
    if (other) {
      for (let c: Command | null = this; c; c = c.parent) {
        // As commander words its suggestion, which the program's writeErr turns into a hint.
        if (c.options.some((o) => o.long === other))
          this.error(`error: unknown option '${flag}'\n(Did you mean ${other}?)`, { code: 'commander.unknownOption' });
      }
    }
    return (Command.prototype as unknown as { unknownOption(this: Command, flag: string): never }).unknownOption.call(this, flag);
  }
}
