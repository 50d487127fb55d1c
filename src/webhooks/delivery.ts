/**
 * A webhook delivery body (spec: Events, Delivery) read into a summary for printing: event name,
 * resource type and id, the attributes it carries and, for version 2, their values before the
 * change. Tolerant: a body that is not a delivery still gets a one-line description.
 */
import { fitText, terminalSafe } from '../output/terminal-text.js';
import { setField } from '../own-field.js';
import { parseJson } from '../lossless-json.js';
import { nestedDeeperThan, tooDeepMessage } from '../json-depth.js';

/** One attribute carried by a delivery. */
interface ChangedAttribute {
  name: string;
  value: unknown;
  /** Present (maybe null) when a v2 `beforeUpdate` gives the old value. */
  before?: unknown;
  hasBefore: boolean;
}

/** What a delivery says, in the order people read it. */
interface DeliverySummary {
  /** `meta.eventName`, e.g. `prospect.updated`; `(unknown)` when absent. */
  eventName: string;
  type?: string;
  id?: string | number;
  deliveredAt?: string;
  /** 1, or 2 when the body has `beforeUpdate`. */
  payloadVersion: 1 | 2;
  attributes: ChangedAttribute[];
  /** Relationship name → id(s), for destroyed deliveries that carry them. */
  relationships: Record<string, unknown>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads a raw body: the document, or why it is none (not JSON; nested too deeply to print). */
function readBody(raw: Buffer | string): { doc: unknown } | { problem: string } {
  let doc: unknown;
  try {
    doc = parseJson(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch {
    return { problem: 'not a JSON delivery' };
  }
  // Printing walks the values recursively: a hostile sender must not crash the listener.
  if (nestedDeeperThan(doc)) return { problem: `a JSON document ${tooDeepMessage()}` };
  return { doc };
}

/** What a body that gives no summary is, in a few words with its size: `(not a JSON delivery: 12 bytes)`. */
export function undeliverableNote(raw: Buffer | string): string {
  const read = readBody(raw);
  const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  return `(${'problem' in read ? read.problem : 'not a delivery document'}: ${size} bytes)`;
}

/** Parses a raw body; `undefined` when it is not JSON at all, or nests too deeply to print. */
export function parseDelivery(raw: Buffer | string): DeliverySummary | undefined {
  const read = readBody(raw);
  if (!('doc' in read)) return undefined;
  const doc = read.doc;
  if (!isObject(doc)) return undefined;
  const data = isObject(doc.data) ? doc.data : {};
  const meta = isObject(doc.meta) ? doc.meta : {};
  const attrs = isObject(data.attributes) ? data.attributes : {};
  // The spec puts the old values beside type and id; accept an `attributes` object as well.
  const beforeDoc = isObject(doc.beforeUpdate) ? doc.beforeUpdate : undefined;
  const before = beforeDoc ? (isObject(beforeDoc.attributes) ? beforeDoc.attributes : beforeDoc) : undefined;
  const attributes: ChangedAttribute[] = Object.entries(attrs).map(([name, value]) => {
    const hasBefore = before !== undefined && Object.hasOwn(before, name);
    return { name, value, hasBefore, ...(hasBefore ? { before: before[name] } : {}) };
  });
  const relationships: Record<string, unknown> = {};
  if (isObject(data.relationships)) {
    for (const [name, rel] of Object.entries(data.relationships)) {
      const d = isObject(rel) ? rel.data : undefined;
      if (d === undefined) continue;
      setField(relationships, name, Array.isArray(d) ? d.map((x) => (isObject(x) ? x.id : x)) : isObject(d) ? d.id : null);
    }
  }
  return {
    eventName: typeof meta.eventName === 'string' ? meta.eventName : '(unknown)',
    ...(typeof data.type === 'string' ? { type: data.type } : {}),
    ...(typeof data.id === 'string' || typeof data.id === 'number' ? { id: data.id } : {}),
    ...(typeof meta.deliveredAt === 'string' ? { deliveredAt: meta.deliveredAt } : {}),
    payloadVersion: beforeDoc ? 2 : 1,
    attributes,
    relationships,
  };
}

const MAX_VALUE = 60;

function show(v: unknown): string {
  return fitText(typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null'), MAX_VALUE);
}

/**
 * Lines for people: a head line (`prospect.updated  prospect 42`) and one indented line per
 * attribute (`title: CTO → CEO` when the old value is known). Whoever can post to the listener
 * writes these: every part is terminal-safe, values cut without breaking an escape or a grapheme.
 */
export function describeDelivery(d: DeliverySummary): string[] {
  const head = [d.eventName, d.type !== undefined ? `${d.type} ${d.id ?? '?'}` : undefined].filter(Boolean).join('  ');
  const lines = [terminalSafe(head)];
  for (const a of d.attributes)
    lines.push(`  ${terminalSafe(a.name)}: ${a.hasBefore ? `${show(a.before)} → ${show(a.value)}` : show(a.value)}`);
  for (const [name, id] of Object.entries(d.relationships)) lines.push(`  ${terminalSafe(name)} → ${show(id)}`);
  return lines;
}

/** The NDJSON record of a delivery (`listen -o ndjson`). */
export function deliveryRecord(d: DeliverySummary): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  const before: Record<string, unknown> = {};
  for (const a of d.attributes) {
    setField(changes, a.name, a.value);
    if (a.hasBefore) setField(before, a.name, a.before);
  }
  return {
    event: d.eventName,
    type: d.type ?? null,
    id: d.id ?? null,
    deliveredAt: d.deliveredAt ?? null,
    payloadVersion: d.payloadVersion,
    attributes: changes,
    ...(d.payloadVersion === 2 ? { beforeUpdate: before } : {}),
    ...(Object.keys(d.relationships).length ? { relationships: d.relationships } : {}),
  };
}
