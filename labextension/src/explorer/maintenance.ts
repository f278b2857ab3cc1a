/**
 * A table's maintenance as the explorer shows it: the records of `table maintenance show|run|history`
 * and how they read (histogram bins, what a preview or run did, history rows, errors and what to do
 * about them). DOM-free, under jest.
 */
import { ApiError, plainMessage } from '../errors';
import { bytesText, countText, timeText } from './display';

export interface IMaintenanceSetting {
  value: string | number | boolean;
  /** default, warehouse or table */
  source: string;
  help: string;
}

export interface ITableHealth {
  snapshots: number;
  'data-files': number;
  'delete-files': number;
  manifests: number;
  bytes: number;
  'small-files': number;
  'small-file-ratio': number;
  /** Data files smaller than this are small (compaction's threshold). */
  'small-file-bytes': number;
  /** Files per bin; `bounds` are the bins' upper bounds in bytes, the last bin has none. */
  histogram: { bounds: number[]; counts: number[] };
}

export interface IFileSet {
  count: number;
  bytes: number;
  files: { path: string; size: number }[];
}

export interface IOperationReport {
  operation: string;
  'dry-run': boolean;
  'removed-files': IFileSet;
  'added-files': IFileSet;
  'marked-files': IFileSet;
  /** Snapshot ids as text (they exceed JavaScript's numbers). */
  'removed-snapshots': string[];
  'snapshot-id': string | null;
  'bytes-freed': number;
  /** Why nothing was done, for people to read. */
  skipped: string | null;
  details: Record<string, unknown>;
}

export interface IRunRecord {
  id: string;
  trigger: string;
  'dry-run': boolean;
  'started-ms': number;
  'ended-ms': number;
  operations: IOperationReport[];
  errors: { operation: string; message: string }[];
}

export interface IMaintenanceView {
  table: string;
  settings: Record<string, IMaintenanceSetting>;
  health: ITableHealth;
  'last-run': IRunRecord | null;
}

/** What a maintenance call was doing, for the error to say what permission it needs. */
export type MaintenanceCall = 'show' | 'preview' | 'apply' | 'history';

const PERMISSION: Record<MaintenanceCall, string> = {
  show: 's3tables:GetTableMaintenanceConfiguration',
  preview: 's3tables:GetTableMaintenanceConfiguration',
  apply: 's3tables:PutTableMaintenanceConfiguration',
  history: 's3tables:GetTableMaintenanceJobStatus'
};

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** A bin bound in whole binary units when it is one (16384 → [16, 'KiB']), else the explorer's size. */
function boundParts(bytes: number): [string, string] {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && value % 1024 === 0 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (value >= 1024) {
    const [number, name] = bytesText(bytes).split(' ');
    return [number, name];
  }
  return [String(value), UNITS[unit]];
}

/** The histogram's bins as "< 16 KiB", "16-256 KiB", "256 KiB-4 MiB", ..., "> 512 MiB". */
export function sizeBinLabels(bounds: number[]): string[] {
  if (!bounds.length) {
    return ['all sizes'];
  }
  const parts = bounds.map(boundParts);
  const text = ([value, unit]: [string, string]) => `${value} ${unit}`;
  const labels = [`< ${text(parts[0])}`];
  for (let i = 1; i < parts.length; i++) {
    const [low, high] = [parts[i - 1], parts[i]];
    labels.push(low[1] === high[1] ? `${low[0]}-${text(high)}` : `${text(low)}-${text(high)}`);
  }
  labels.push(`> ${text(parts[parts.length - 1])}`);
  return labels;
}

/** The histogram as bins of label and count (histogram.ts draws them as a values histogram). */
export function sizeBins(histogram: ITableHealth['histogram']): { value: string; count: number }[] {
  const labels = sizeBinLabels(histogram.bounds);
  return histogram.counts.map((count, i) => ({ value: labels[i] ?? `bin ${i + 1}`, count }));
}

const plural = (count: number, one: string, many = `${one}s`) => `${countText(count)} ${count === 1 ? one : many}`;

/** The small files as one fact: "6 of 6 (100%), under 384.0 MiB". */
export function smallFilesText(health: ITableHealth): string {
  const ratio = Math.round(health['small-file-ratio'] * 100);
  return `${countText(health['small-files'])} of ${countText(health['data-files'])} (${ratio}%), under ${bytesText(health['small-file-bytes'])}`;
}

/** When the last run ended, and what started it: "2026-11-25 12:00:00 UTC (manual)", or "never". */
export function lastRunText(run: IRunRecord | null): string {
  return run ? `${timeText(run['ended-ms'])} (${run.trigger})` : 'never';
}

/** Operations that replace files in a new snapshot: the files they drop stay, for the older
 * snapshots, until snapshot expiry deletes them; so they free nothing themselves. */
const REWRITES = new Set(['compact', 'rewrite-manifests']);

const filesText = (set: IFileSet) => `${plural(set.count, 'file')} (${bytesText(set.bytes)})`;

/** What one operation did, or in a dry run would do, in one sentence. */
export function operationSummary(report: IOperationReport): string {
  if (report.skipped) {
    return `Skipped: ${report.skipped}.`.replace(/\.\.$/, '.');
  }
  const dry = report['dry-run'];
  const [removed, added, marked] = [report['removed-files'], report['added-files'], report['marked-files']];
  const parts: string[] = [];
  if (REWRITES.has(report.operation)) {
    if (removed.count || added.count) {
      parts.push(`${dry ? 'would rewrite' : 'rewrote'} ${filesText(removed)} into ${filesText(added)}`);
    }
  } else {
    const snapshots = report['removed-snapshots'].length;
    if (snapshots) {
      parts.push(`${dry ? 'would remove' : 'removed'} ${plural(snapshots, 'snapshot')}`);
    }
    if (removed.count) {
      parts.push(`${dry ? 'would delete' : 'deleted'} ${filesText(removed)}`);
    }
  }
  if (marked.count) {
    parts.push(`${dry ? 'would mark' : 'marked'} ${filesText(marked)} for deletion after the delay`);
  }
  if (!parts.length) {
    return dry ? 'Nothing to do.' : 'Nothing done.';
  }
  const freed = Math.max(0, report['bytes-freed']);
  const sentence = parts.join(', ');
  const tail = freed > 0 ? `; ${dry ? 'frees' : 'freed'} ${bytesText(freed)}` : '';
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}${tail}.`;
}

/** Bytes a run freed (or would): what its operations deleted (the service counts none for a rewrite,
 * whose files stay until snapshot expiry). */
export function bytesFreed(run: IRunRecord): number {
  return run.operations.reduce((sum, report) => sum + Math.max(0, report['bytes-freed']), 0);
}

/** A whole run in one line: what a preview would do, or what a run did. */
export function runSummary(run: IRunRecord): string {
  const acting = run.operations.filter(report => !report.skipped);
  const failed = run.errors.length ? ` ${plural(run.errors.length, 'operation')} failed.` : '';
  if (!run.operations.length && !run.errors.length) {
    return 'No operation ran: every one is disabled for this table.';
  }
  const freed = bytesFreed(run);
  if (run['dry-run']) {
    const what = acting.length ? `${plural(acting.length, 'operation')} would change the table` : 'nothing is due';
    return `Preview (nothing was changed): ${what}${freed ? `, freeing ${bytesText(freed)}` : ''}.${failed}`;
  }
  const what = acting.length ? `${plural(acting.length, 'operation')} changed the table` : 'nothing was due';
  return `Done: ${what}${freed ? `, freeing ${bytesText(freed)}` : ''}.${failed}`;
}

/** Whether applying a preview would change anything (else there is nothing to apply). */
export function hasChanges(run: IRunRecord): boolean {
  return run.operations.some(
    report =>
      !report.skipped &&
      (report['removed-snapshots'].length > 0 ||
        report['removed-files'].count > 0 ||
        report['added-files'].count > 0 ||
        report['marked-files'].count > 0)
  );
}

/** How long a run took: "0.4 s", "2 min 5 s". */
export function durationText(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 60) {
    return `${seconds.toFixed(1)} s`;
  }
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

/** One history row: started, took, trigger, what it did, freed, errors. */
export function historyRow(run: IRunRecord): string[] {
  const did = run.operations.filter(report => !report.skipped).map(report => report.operation);
  return [
    timeText(run['started-ms']),
    durationText(run['ended-ms'] - run['started-ms']),
    run.trigger,
    did.join(', ') || 'nothing due',
    bytesText(bytesFreed(run)),
    run.errors.map(error => `${error.operation}: ${error.message}`).join('; ') || 'none'
  ];
}

/** The error's own words as a sentence. */
function said(error: unknown): string {
  const text = plainMessage(error);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** What went wrong, and what to do next. */
export function maintenanceErrorText(error: unknown, call: MaintenanceCall): string {
  if (error instanceof ApiError) {
    // The service's refusals say "Access denied"; Jupyter's own 403 (a lost login) reads as plainMessage says.
    if (error.status === 403 && /access denied/i.test(error.message)) {
      return (
        `You need ${PERMISSION[call]} on this table: ask an administrator for a policy that grants it ` +
        `(the service said: ${error.message}).`
      );
    }
    switch (error.status) {
      case 404:
        return `${said(error)} The table may have been dropped or renamed: refresh the panel.`;
      case 409:
        return `${said(error)} Another maintenance run holds this table: try again in a minute.`;
      case 0:
      case 401:
      case 403:
        return said(error);
    }
  }
  const next = call === 'show' || call === 'history' ? 'Press Reload to try again.' : 'Preview again to see where the table stands now.';
  return `${said(error)} ${next}`;
}

/** The question before a run for real: what it deletes for good, and what it rewrites. */
export function applyQuestion(table: string, preview: IRunRecord): string {
  const sum = (pick: (report: IOperationReport) => number, rewrites: boolean) =>
    preview.operations.filter(r => REWRITES.has(r.operation) === rewrites).reduce((total, r) => total + pick(r), 0);
  const snapshots = sum(report => report['removed-snapshots'].length, false);
  const deleted = sum(report => report['removed-files'].count, false);
  const rewritten = sum(report => report['removed-files'].count, true);
  const gone = [snapshots ? plural(snapshots, 'snapshot') : '', deleted ? plural(deleted, 'file') : '']
    .filter(Boolean)
    .join(' and ');
  const sentences = [`Run maintenance on ${table} now?`];
  if (gone) {
    sentences.push(`It deletes ${gone} for good.`);
  }
  if (rewritten) {
    sentences.push(`It rewrites ${plural(rewritten, 'file')}; they are deleted once no kept snapshot needs them.`);
  }
  if (snapshots) {
    sentences.push('Time travel to a removed snapshot is no longer possible.');
  }
  return sentences.join(' ');
}

/** The settings as rows (setting, value, where it comes from, what it does), by name. */
export function settingRows(settings: Record<string, IMaintenanceSetting>): string[][] {
  return Object.entries(settings)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, setting]) => [name, String(setting.value), setting.source, setting.help]);
}

/** How many settings this table or its warehouse sets, the rest being the service's defaults. */
export function settingsSummary(settings: Record<string, IMaintenanceSetting>): string {
  const all = Object.values(settings);
  const set = all.filter(setting => setting.source !== 'default').length;
  return `${set} of ${all.length} set for this table or its warehouse, the rest are defaults`;
}

/** The line that changes a setting of this table (in a notebook; the CLI's is the same after `aistor`). */
export function setCommand(source: { warehouse: string; namespace: string; table: string }): string {
  return `%aistor table maintenance set ${source.warehouse} ${source.namespace} ${source.table} -p SETTING=VALUE`;
}
