/**
 * The per-profile settings of `svc config`: what each key means, how its value is checked, and
 * the option it is the default of. A flag on the command line always wins.
 */
import { UsageError } from '../../errors.js';
import { didYouMean } from '../../suggest.js';
import { parseWholeNumber } from '../../runtime/option-parsers.js';

/** One setting. */
interface SettingSpec {
  key: string;
  description: string;
  /** Checks and converts a value given on the command line. */
  parse(value: string): string | number;
}

const whole = (key: string, min: number, max: number) => (v: string) => parseWholeNumber(v, key, min, max);

/**
 * Every setting, in the order `svc config list` shows them. `formats` are the output formats,
 * handed in by the command's wiring (start-up: this module must not share the output module).
 */
export function settingSpecs(formats: readonly string[]): SettingSpec[] {
  return [
    {
      key: 'output',
      description: `default output format (${formats.join(', ')}); -o and --json override it`,
      parse: (v) => {
        if (!formats.includes(v)) throw new UsageError(`output ${v}: expected one of ${formats.join(', ')}`);
        return v;
      },
    },
    { key: 'pageSize', description: 'page size `list` asks for (--page-size overrides it)', parse: whole('pageSize', 1, 1000) },
    {
      key: 'concurrency',
      description: 'requests at once in bulk runs and enroll (--concurrency overrides it)',
      parse: whole('concurrency', 1, 32),
    },
    {
      key: 'appUrl',
      description: 'web-app address of a record for `svc open` and `get --web`: {type} {path} {command} {id}',
      parse: (v) => {
        let url: URL;
        try {
          url = new URL(v.replaceAll(/\{(type|path|command|id)\}/g, 'x'));
        } catch {
          throw new UsageError(`appUrl ${v}: not a URL (e.g. https://app.example.com/{path}/{id})`);
        }
        if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`appUrl ${v}: expected an http(s) URL`);
        if (!v.includes('{id}'))
          throw new UsageError(`appUrl ${v}: needs {id} where the record id goes (e.g. https://app.example.com/{path}/{id})`);
        return v;
      },
    },
  ];
}

/** The spec of a key, or a usage error naming the keys (with a suggestion). */
export function settingSpec(key: string, formats: readonly string[]): SettingSpec {
  const specs = settingSpecs(formats);
  const spec = specs.find((s) => s.key === key);
  if (spec) return spec;
  const keys = specs.map((s) => s.key);
  throw new UsageError(`unknown setting "${key}"${didYouMean(key, keys)}: the settings are ${keys.join(', ')}`);
}
