/** How table details read: Iceberg types, snapshot times and summaries, preview cells. */
import { ISnapshot } from './types';

/** An Iceberg type as text: primitives as they are, nested types in a short form. */
export function typeText(type: unknown): string {
  if (typeof type === 'string') {
    return type;
  }
  const nested = (type ?? {}) as Record<string, unknown>;
  switch (nested.type) {
    case 'list':
      return `list<${typeText(nested.element)}>`;
    case 'map':
      return `map<${typeText(nested.key)}, ${typeText(nested.value)}>`;
    case 'struct': {
      const fields = (nested.fields as { name: string; type: unknown }[]) ?? [];
      return `struct<${fields.map(f => `${f.name}: ${typeText(f.type)}`).join(', ')}>`;
    }
    default:
      return JSON.stringify(type);
  }
}

/** A snapshot's time as `YYYY-MM-DD HH:MM:SS` UTC (the same on every machine). */
export function snapshotTime(snapshot: ISnapshot): string {
  return new Date(snapshot['timestamp-ms']).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

const SUMMARY_KEYS = ['added-records', 'deleted-records', 'total-records', 'added-data-files', 'total-data-files'];

/** The record and file counts of a snapshot's summary, in one line. */
export function summaryText(snapshot: ISnapshot): string {
  const summary = snapshot.summary ?? {};
  return SUMMARY_KEYS.filter(key => key in summary)
    .map(key => `${key}=${summary[key]}`)
    .join(', ');
}

/** The whole summary, one entry a line (a tooltip). */
export function summaryDetail(snapshot: ISnapshot): string {
  return Object.entries(snapshot.summary ?? {})
    .map(([key, value]) => `${key}: ${value}`)
    .join('\n');
}

/** An ISO time of the admin API (UTC, `...Z`) to the minute: `2026-11-29 12:16 UTC`. */
export function shortTime(iso: string): string {
  const match = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)[\d:.]*Z$/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}

/** Newest snapshot first. */
export function newestFirst(snapshots: ISnapshot[]): ISnapshot[] {
  return [...snapshots].sort((a, b) => b['timestamp-ms'] - a['timestamp-ms']);
}

/** A preview cell: null as an empty-set sign, objects as JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) {
    return '∅';
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
