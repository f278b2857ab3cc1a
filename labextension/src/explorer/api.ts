/** The explorer's calls of the server extension's API (see ../api.ts for the request and errors). */
import { request, runCommand } from '../api';
import { IMaintenanceView, IRunRecord } from './maintenance';
import { rowsQuery, IRowsView } from './query';
import { ExplorerSource } from './source';
import { IDeltaDetails, IIcebergDetails, IProfile, IRowsPage, ISharedTableView, IViewDetails } from './types';

const segment = encodeURIComponent;

function tablePath(warehouse: string, namespace: string, table: string): string {
  return `warehouses/${segment(warehouse)}/namespaces/${segment(namespace)}/tables/${segment(table)}`;
}

export function icebergDetails(warehouse: string, namespace: string, table: string): Promise<IIcebergDetails> {
  return request(`${tablePath(warehouse, namespace, table)}?preview=0`);
}

export function viewDetails(warehouse: string, namespace: string, view: string): Promise<IViewDetails> {
  return request(`warehouses/${segment(warehouse)}/namespaces/${segment(namespace)}/views/${segment(view)}`);
}

export function deltaDetails(bucket: string, path: string): Promise<IDeltaDetails> {
  return request(`buckets/${segment(bucket)}/delta?${new URLSearchParams({ path })}`);
}

export function sharedTable(share: string, schema: string, table: string): Promise<ISharedTableView> {
  return request(`shares/${segment(share)}/schemas/${segment(schema)}/tables/${segment(table)}`);
}

/** One page of an Iceberg or Delta table's rows (a Delta version goes as `version`). */
export function rows(source: ExplorerSource, view: IRowsView, offset: number, limit: number): Promise<IRowsPage> {
  if (source.kind === 'iceberg') {
    return request(`${tablePath(source.warehouse, source.namespace, source.table)}/rows?${rowsQuery(view, offset, limit)}`);
  }
  if (source.kind === 'delta') {
    const query = rowsQuery(view, offset, limit, 'version');
    return request(`buckets/${segment(source.bucket)}/delta/rows?path=${segment(source.path)}&${query}`);
  }
  throw new Error(`a ${source.kind} has no rows to page through`);
}

export function profile(warehouse: string, namespace: string, table: string, snapshot: string | null): Promise<IProfile> {
  const query = snapshot ? `?${new URLSearchParams({ snapshot })}` : '';
  return request(`${tablePath(warehouse, namespace, table)}/profile${query}`);
}

/** `table maintenance <what>` of an Iceberg table, through the command table (as the CLI runs it). */
async function maintenance<T>(what: string, warehouse: string, namespace: string, table: string, ...flags: string[]): Promise<T> {
  return (await runCommand<T>(['table', 'maintenance', what, warehouse, namespace, table, ...flags])).data;
}

/** The table's maintenance settings, its health and its last run. */
export function maintenanceView(warehouse: string, namespace: string, table: string): Promise<IMaintenanceView> {
  return maintenance('show', warehouse, namespace, table);
}

/** Runs the table's enabled maintenance operations, or previews them (`dryRun`: nothing changes). */
export function runMaintenance(warehouse: string, namespace: string, table: string, dryRun: boolean): Promise<IRunRecord> {
  return maintenance('run', warehouse, namespace, table, ...(dryRun ? ['--dry-run'] : []));
}

/** The table's maintenance runs, newest first. */
export function maintenanceHistory(warehouse: string, namespace: string, table: string): Promise<IRunRecord[]> {
  return maintenance('history', warehouse, namespace, table);
}
