/** The explorer's API answers (the server extension's explorer, store and sharing endpoints). */
import { IField, ISnapshot, ITableDetails } from '../types';

/** A grid cell: exact numbers only; big ints, decimals, times, binary and nested values as text. */
export type Cell = null | boolean | number | string;

export interface IColumn {
  name: string;
  type: string;
}

/** One page of rows (`rows` of a table, a Delta table, or a preview). */
export interface IRowsPage {
  columns: IColumn[];
  rows: Cell[][];
  offset: number;
  limit: number;
  /** Null when counting would cost a scan (a filter, a snapshot without a summary). */
  total: number | null;
  snapshotId: string | null;
}

export interface ISortField {
  'source-id': number;
  transform: string;
  direction: 'asc' | 'desc';
  'null-order': string;
}

export interface IOverview {
  format: 'iceberg';
  location: string | null;
  formatVersion: number | null;
  totalSizeBytes: number | null;
  fileCount: number | null;
  rowCount: number | null;
  deleteFileCount: number | null;
  partitionSpec: ITableDetails['partitionSpec'];
  sortOrder: { 'order-id': number; fields: ISortField[] } | null;
  lastUpdated: number | null;
}

export interface ISchemaChange {
  change: 'added' | 'removed' | 'renamed' | 'type' | 'required' | 'optional' | 'doc';
  fieldId: number;
  path: string;
  from?: unknown;
  to?: unknown;
}

export interface IExplorerSnapshot extends ISnapshot {
  operation?: string;
  schemaId?: number;
}

export interface IRef {
  type: 'branch' | 'tag';
  snapshotId: string;
}

export interface IIcebergDetails extends ITableDetails {
  overview: IOverview;
  schemas: { 'schema-id': number; fields: IField[] }[];
  currentSchemaId: number | null;
  schemaHistory: { schemaId: number; changes: ISchemaChange[] }[];
  refs: Record<string, IRef>;
  snapshots: IExplorerSnapshot[];
}

export type Histogram =
  | { kind: 'numeric'; edges: number[]; counts: number[] }
  | { kind: 'values'; values: { value: Cell; count: number }[] };

export interface IColumnProfile {
  name: string;
  type: string;
  nullCount: number | null;
  distinct: number | null;
  min: Cell;
  max: Cell;
  histogram: Histogram | null;
  source: 'manifest' | 'sample';
}

export interface IProfile {
  snapshotId: string | null;
  rowCount: number | null;
  sample: { rows: number; files: number; complete: boolean };
  columns: IColumnProfile[];
}

export interface IViewDetails {
  warehouse: string;
  namespace: string;
  view: string;
  location: string | null;
  sql: { dialect: string; sql: string }[];
  schema: { 'schema-id'?: number; fields: IField[] };
  versions: { versionId: number; timestampMs: number; summary: Record<string, string> }[];
  currentVersionId: number | null;
  properties: Record<string, string>;
}

export interface IDeltaField {
  name: string;
  type: unknown;
  nullable: boolean;
  metadata?: Record<string, unknown>;
}

export interface IDeltaVersion {
  version: number;
  timestamp: number | string | null;
  operation: string | null;
  operationParameters?: Record<string, unknown>;
}

export interface IDeltaDetails {
  format: 'delta';
  bucket: string;
  path: string;
  location: string;
  version: number;
  schema: { fields: IDeltaField[] };
  partitionColumns: string[];
  fileCount: number | null;
  totalSizeBytes: number | null;
  rowCount: number | null;
  history: IDeltaVersion[];
  properties: Record<string, string>;
}

export interface ISharedTableView {
  share: string;
  schema: string;
  table: string;
  kind: string;
  source: string;
  format: string;
  version: number | null;
  schemaFields: { name: string; type: unknown; nullable: boolean }[];
  partitionColumns: string[];
  preview: { columns: IColumn[] | string[]; rows: Cell[][] };
  versions?: Record<string, unknown>[];
  audit: Record<string, unknown>[];
}
