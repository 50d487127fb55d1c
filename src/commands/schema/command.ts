/** `svc schema pull|show <type>`: the org's schema (custom-field labels, extra fields), cached per profile. */
import type { Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';

/** Registers `schema pull` and `schema show`. */
export function registerSchema(program: Command, app: App): void {
  const schema = program
    .command('schema')
    .description("fetch and show the organization's schema: custom-field labels and validations, fields the spec does not show")
    .addHelpText(
      'after',
      `
After \`svc schema pull\`, custom-field labels work as attribute names and values are checked
against the field's validation type before anything is sent:
  $ svc prospects create --attr firstName=Ada --attr "Lead Source=Webinar"

Examples:
  $ svc schema pull
  $ svc schema show prospect
  $ svc schema show accounts -o json | jq '.[] | select(.label)'
`,
    );
  schema.action(() => schema.help({ error: true }));
  schema
    .command('pull')
    .description('fetch /schema/openapi.json and /types and cache them for this profile')
    .action(async (_opts, cmd: Command) => {
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      const { pullHandler } = await import('./pull.js');
      await runCommand(app, cmd, (ctx) => pullHandler(ctx));
    });
  schema
    .command('show')
    .description('list the fields of a type: type, marks (RO WO F S max), custom labels and validations')
    .argument('<type>', 'a type or resource name: prospect, prospects, sequence-states, ...')
    .addHelpText(
      'after',
      `
With -o json each field has a source: spec (the spec's tables show it), inferred (the spec
does not show it: svc infers it from the rest of the spec), org (only your org's schema
shows it, after \`svc schema pull\`) or custom (a labelled custom field).
`,
    )
    .action(async (type: string, _opts, cmd: Command) => {
      const { showHandler } = await import('./show.js');
      await runCommand(app, cmd, (ctx) => showHandler(ctx, type));
    });
}
