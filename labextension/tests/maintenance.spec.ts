import { ApiError } from '../src/errors';
import {
  applyQuestion,
  bytesFreed,
  durationText,
  hasChanges,
  historyRow,
  IOperationReport,
  IRunRecord,
  lastRunText,
  maintenanceErrorText,
  operationSummary,
  runSummary,
  setCommand,
  settingRows,
  settingsSummary,
  sizeBinLabels,
  sizeBins,
  smallFilesText
} from '../src/explorer/maintenance';

const KiB = 1024;
const MiB = 1024 * KiB;
// Bins as the service draws them (tables/maintenance/health.py).
const BOUNDS = [KiB, 16 * KiB, 256 * KiB, 4 * MiB, 64 * MiB, 512 * MiB];

const files = (count: number, bytes: number) => ({ count, bytes, files: [] });
const none = files(0, 0);

function report(fields: Partial<IOperationReport>): IOperationReport {
  return {
    operation: 'expire-snapshots',
    'dry-run': true,
    'removed-files': none,
    'added-files': none,
    'marked-files': none,
    'removed-snapshots': [],
    'snapshot-id': null,
    'bytes-freed': 0,
    skipped: null,
    details: {},
    ...fields
  };
}

function run(fields: Partial<IRunRecord>): IRunRecord {
  return {
    id: 'a'.repeat(32),
    trigger: 'manual',
    'dry-run': true,
    'started-ms': Date.UTC(2026, 10, 25, 12, 0, 0),
    'ended-ms': Date.UTC(2026, 10, 25, 12, 0, 0) + 1400,
    operations: [],
    errors: [],
    ...fields
  };
}

const expiry = report({
  'removed-snapshots': ['8004521752309098123', '2', '3'],
  'removed-files': files(3, 3 * 4 * KiB),
  'bytes-freed': 3 * 4 * KiB
});
const unreferenced = report({ operation: 'remove-unreferenced-files', skipped: 'nothing is older than the grace period' });

describe('the file-size histogram', () => {
  it('labels the bins by their upper bounds, the last one open', () => {
    expect(sizeBinLabels(BOUNDS)).toEqual([
      '< 1 KiB',
      '1-16 KiB',
      '16-256 KiB',
      '256 KiB-4 MiB',
      '4-64 MiB',
      '64-512 MiB',
      '> 512 MiB'
    ]);
  });

  it('writes a bound that is no whole unit as the explorer writes sizes', () => {
    expect(sizeBinLabels([1000, 1536 * KiB])).toEqual(['< 1000 B', '1000 B-1.5 MiB', '> 1.5 MiB']);
    expect(sizeBinLabels([])).toEqual(['all sizes']);
  });

  it('pairs each count with its label', () => {
    expect(sizeBins({ bounds: BOUNDS, counts: [6, 0, 0, 0, 0, 0, 1] })).toEqual([
      { value: '< 1 KiB', count: 6 },
      { value: '1-16 KiB', count: 0 },
      { value: '16-256 KiB', count: 0 },
      { value: '256 KiB-4 MiB', count: 0 },
      { value: '4-64 MiB', count: 0 },
      { value: '64-512 MiB', count: 0 },
      { value: '> 512 MiB', count: 1 }
    ]);
  });
});

describe('health facts', () => {
  it('says how many files are small, of all, under which threshold', () => {
    const health = {
      snapshots: 7, 'data-files': 8, 'delete-files': 0, manifests: 7, bytes: 9 * KiB,
      'small-files': 6, 'small-file-ratio': 0.75, 'small-file-bytes': 384 * MiB,
      histogram: { bounds: BOUNDS, counts: [8, 0, 0, 0, 0, 0, 0] }
    };
    expect(smallFilesText(health)).toBe('6 of 8 (75%), under 384.0 MiB');
  });

  it('says when the last run was, and what started it', () => {
    expect(lastRunText(null)).toBe('never');
    expect(lastRunText(run({ trigger: 'schedule' }))).toBe('2026-11-25 12:00:01 UTC (schedule)');
  });
});

describe('what a preview or a run does', () => {
  it('says per operation what would go, or why it was skipped', () => {
    expect(operationSummary(expiry)).toBe('Would remove 3 snapshots, would delete 3 files (12.0 KiB); frees 12.0 KiB.');
    expect(operationSummary({ ...expiry, 'dry-run': false })).toBe('Removed 3 snapshots, deleted 3 files (12.0 KiB); freed 12.0 KiB.');
    expect(operationSummary(unreferenced)).toBe('Skipped: nothing is older than the grace period.');
    expect(operationSummary(report({}))).toBe('Nothing to do.');
    const compaction = report({
      operation: 'compact', 'removed-files': files(6, 6 * KiB), 'added-files': files(1, 4 * KiB), 'bytes-freed': 0
    });
    expect(operationSummary(compaction)).toBe('Would rewrite 6 files (6.0 KiB) into 1 file (4.0 KiB).');
    expect(operationSummary({ ...compaction, 'dry-run': false })).toBe('Rewrote 6 files (6.0 KiB) into 1 file (4.0 KiB).');
    const marking = report({ operation: 'remove-unreferenced-files', 'marked-files': files(2, 10) });
    expect(operationSummary(marking)).toBe('Would mark 2 files (10 B) for deletion after the delay.');
  });

  it('sums a whole run up, and tells a preview from a run', () => {
    const preview = run({ operations: [expiry, unreferenced] });
    expect(runSummary(preview)).toBe('Preview (nothing was changed): 1 operation would change the table, freeing 12.0 KiB.');
    expect(hasChanges(preview)).toBe(true);
    const done = run({ 'dry-run': false, operations: [{ ...expiry, 'dry-run': false }] });
    expect(runSummary(done)).toBe('Done: 1 operation changed the table, freeing 12.0 KiB.');
    const idle = run({ operations: [unreferenced] });
    expect(runSummary(idle)).toBe('Preview (nothing was changed): nothing is due.');
    expect(hasChanges(idle)).toBe(false);
    expect(runSummary(run({}))).toBe('No operation ran: every one is disabled for this table.');
    const failed = run({ operations: [unreferenced], errors: [{ operation: 'expire-snapshots', message: 'OSError: x' }] });
    expect(runSummary(failed)).toBe('Preview (nothing was changed): nothing is due. 1 operation failed.');
  });

  it('asks before deleting, naming what goes for good and what is rewritten', () => {
    expect(applyQuestion('shop.events', run({ operations: [expiry, unreferenced] }))).toBe(
      'Run maintenance on shop.events now? It deletes 3 snapshots and 3 files for good. ' +
        'Time travel to a removed snapshot is no longer possible.'
    );
    const compaction = report({ operation: 'compact', 'removed-files': files(6, 6 * KiB), 'added-files': files(1, 4 * KiB) });
    expect(applyQuestion('shop.events', run({ operations: [compaction] }))).toBe(
      'Run maintenance on shop.events now? It rewrites 6 files; they are deleted once no kept snapshot needs them.'
    );
  });

  it('counts as freed what the service says each operation deletes (none for a rewrite)', () => {
    const compaction = report({
      operation: 'compact', 'removed-files': files(6, 6 * KiB), 'added-files': files(1, 4 * KiB), 'bytes-freed': 0
    });
    const both = run({ operations: [compaction, expiry] });
    expect(bytesFreed(both)).toBe(12 * KiB);
    expect(runSummary(both)).toBe('Preview (nothing was changed): 2 operations would change the table, freeing 12.0 KiB.');
  });
});

describe('the history', () => {
  it('has a row per run: started, took, trigger, did, freed, errors', () => {
    const done = run({ 'dry-run': false, operations: [{ ...expiry, 'dry-run': false }, unreferenced] });
    expect(historyRow(done)).toEqual([
      '2026-11-25 12:00:00 UTC', '1.4 s', 'manual', 'expire-snapshots', '12.0 KiB', 'none'
    ]);
    const failed = run({ operations: [unreferenced], errors: [{ operation: 'expire-snapshots', message: 'OSError: x' }] });
    expect(historyRow(failed).slice(3)).toEqual(['nothing due', '0 B', 'expire-snapshots: OSError: x']);
    expect(durationText(125_000)).toBe('2 min 5 s');
  });
});

describe('errors say what to do next', () => {
  it('names the permission a refused call needs', () => {
    const refused = new ApiError(403, 'Access denied: s3tables:PutTableMaintenanceConfiguration on arn:x');
    expect(maintenanceErrorText(refused, 'apply')).toBe(
      'You need s3tables:PutTableMaintenanceConfiguration on this table: ask an administrator for a policy ' +
        'that grants it (the service said: Access denied: s3tables:PutTableMaintenanceConfiguration on arn:x).'
    );
    expect(maintenanceErrorText(refused, 'history')).toContain('s3tables:GetTableMaintenanceJobStatus');
    expect(maintenanceErrorText(refused, 'preview')).toContain('s3tables:GetTableMaintenanceConfiguration');
  });

  it('leaves Jupyter’s own refusal (a lost login) to the panel’s words', () => {
    expect(maintenanceErrorText(new ApiError(403, 'Forbidden'), 'apply')).toBe(
      'Jupyter refused the request: log in to JupyterLab again.'
    );
  });

  it('says a busy table and a gone table apart from other failures', () => {
    expect(maintenanceErrorText(new ApiError(409, 'running on another server'), 'apply')).toBe(
      'Running on another server. Another maintenance run holds this table: try again in a minute.'
    );
    expect(maintenanceErrorText(new ApiError(404, 'no such table'), 'show')).toContain('refresh the panel');
    expect(maintenanceErrorText(new ApiError(502, 'OSError: disk'), 'apply')).toBe(
      'The AIStor service failed: OSError: disk. Preview again to see where the table stands now.'
    );
    expect(maintenanceErrorText(new ApiError(0, ''), 'show')).toBe('Cannot reach the Jupyter server. Is it still running?');
  });
});

describe('the settings', () => {
  it('lists them by name with their source, and says how many are not defaults', () => {
    const settings = {
      'history.expire.max-snapshot-age-ms': { value: 0, source: 'table', help: 'older snapshots are removed' },
      'maintenance.compaction.enabled': { value: true, source: 'default', help: 'rewrite small data files' }
    };
    expect(settingRows(settings)).toEqual([
      ['history.expire.max-snapshot-age-ms', '0', 'table', 'older snapshots are removed'],
      ['maintenance.compaction.enabled', 'true', 'default', 'rewrite small data files']
    ]);
    expect(settingsSummary(settings)).toBe('1 of 2 set for this table or its warehouse, the rest are defaults');
    expect(setCommand({ warehouse: 'wh', namespace: 'sales.eu', table: 'orders' })).toBe(
      '%aistor table maintenance set wh sales.eu orders -p SETTING=VALUE'
    );
  });
});
