/** A snapshot's summary against its parent's: how the table's totals moved. */
import { ISnapshot } from '../types';

export interface ISummaryChange {
  key: string;
  before: string | null;
  after: string | null;
  /** `+3`, `-1`, `0`, or null when one side is missing or not a number. */
  change: string | null;
}

const TOTALS = [
  'total-records',
  'total-data-files',
  'total-delete-files',
  'total-position-deletes',
  'total-equality-deletes',
  'total-files-size'
];

const INTEGER = /^-?\d+$/;

/** The totals of `snapshot` vs `parent` (null: the first snapshot, everything counted from 0).
 * BigInt keeps counts exact whatever their size. */
export function summaryDiff(snapshot: ISnapshot, parent: ISnapshot | null): ISummaryChange[] {
  const after = snapshot.summary ?? {};
  const before = parent?.summary ?? {};
  return TOTALS.filter(key => key in after || key in before).map(key => {
    const a = after[key] ?? null;
    const b = parent ? (before[key] ?? null) : '0';
    const change = a !== null && b !== null && INTEGER.test(a) && INTEGER.test(b) ? signed(BigInt(a) - BigInt(b)) : null;
    return { key, before: parent ? b : null, after: a, change };
  });
}

function signed(value: bigint): string {
  return value > 0n ? `+${value}` : String(value);
}

/** The snapshot a snapshot was made on, when the table still has it. */
export function parentOf<T extends ISnapshot>(snapshot: T, snapshots: T[]): T | null {
  const id = snapshot['parent-snapshot-id'];
  return (id && snapshots.find(s => s['snapshot-id'] === id)) || null;
}
