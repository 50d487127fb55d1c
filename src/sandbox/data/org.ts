/**
 * The organization behind the sandbox: its name and the labelled custom fields that
 * `GET /types` reports and that writes are validated against.
 */

/** A custom field's validation, as `GET /types` returns it in `meta.validations`. */
export interface CustomFieldValidation {
  /** One of the spec's validation types (`inclusion`, `numerical`, ...). */
  type: string;
  required: boolean;
  label: string;
  definition: null | string | string[];
}

/** Organization data, persisted with the records. */
export interface OrgConfig {
  id: number;
  /**
   * A random id given when the org is made (a copy keeps the real org's `id`): with the place of
   * its file, what tells the side files of a run (journals, export parts) one sandbox org from
   * another, whatever port serves it.
   */
  instance?: string;
  name: string;
  shortName: string;
  /** type → custom field name → validation. */
  customFields: Record<string, Record<string, CustomFieldValidation>>;
}

/** The demo organization's settings. */
export function defaultOrg(): OrgConfig {
  return {
    id: 1,
    name: 'Acme Rockets (sandbox)',
    shortName: 'acme-sandbox',
    customFields: {
      prospect: {
        custom1: {
          type: 'inclusion',
          required: false,
          label: 'Lead Source Detail',
          definition: ['Webinar', 'Conference', 'Referral', 'Inbound', 'Outbound'],
        },
        custom2: { type: 'numerical', required: false, label: 'Lead Score', definition: null },
        custom3: { type: 'url', required: false, label: 'Calendar Link', definition: null },
        custom4: { type: 'date', required: false, label: 'Last Event Attended', definition: null },
      },
      account: {
        custom1: { type: 'inclusion', required: false, label: 'Tier', definition: ['Enterprise', 'Mid-Market', 'SMB'] },
        custom2: { type: 'currency', required: false, label: 'Annual Revenue', definition: 'USD' },
      },
      opportunity: {
        custom1: { type: 'percentage', required: false, label: 'Win Probability', definition: null },
        custom2: { type: 'multi_inclusion', required: false, label: 'Competitors', definition: ['Globex', 'Initech', 'Umbrella'] },
      },
    },
  };
}
