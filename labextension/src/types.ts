/** The shapes the server extension's API answers (aistor_lab/workbench/jupyter/handlers.py and panel.py). */

export interface IStatus {
  mode: 'managed' | 'attached';
  endpoint: string;
  publicEndpoint: string | null;
  healthy: boolean;
  warehouse: string | null;
  accessKey: string;
  pid: number | null;
  restarts: number;
  dataDir: string | null;
}

/** What is directly inside a warehouse (no namespace) or a namespace. */
export interface INamespaceChildren {
  namespaces: string[][];
  tables: string[];
  views: string[];
}

export interface IField {
  id: number;
  name: string;
  type: unknown;
  required: boolean;
  doc?: string;
}

/** Snapshot ids are 64-bit: the API sends them as text, which JavaScript keeps exactly. */
export interface ISnapshot {
  'snapshot-id': string;
  'parent-snapshot-id'?: string;
  'timestamp-ms': number;
  summary?: Record<string, string>;
}

export interface ITableDetails {
  warehouse: string;
  namespace: string;
  table: string;
  location: string | null;
  metadataLocation: string | null;
  formatVersion: number | null;
  schema: { 'schema-id'?: number; fields: IField[] };
  partitionSpec: {
    'spec-id'?: number;
    fields: { name: string; transform: string; 'source-id': number; 'field-id'?: number }[];
  };
  properties: Record<string, string>;
  currentSnapshotId: string | null;
  snapshots: ISnapshot[];
  /** Integers beyond JavaScript's exact range come as text. */
  preview: { columns: string[]; rows: Record<string, unknown>[] } | null;
}

export interface IShareSummary {
  name: string;
  id: string;
  description?: string;
  schemas: number;
  tables: number;
  created: string;
  updated: string;
}

export interface ISharedTable {
  name: string;
  id: string;
  kind: 'delta' | 'uniform';
  bucket?: string;
  location?: string;
  warehouse?: string;
  namespace?: string;
  table?: string;
}

export interface IShareInfo extends Omit<IShareSummary, 'schemas' | 'tables'> {
  schemas: { name: string; tables: ISharedTable[] }[];
}

export type TokenState = 'valid' | 'expiring' | 'expired';

export interface IToken {
  id: string;
  share: string;
  description?: string;
  kind?: string;
  created: string;
  expirationTime: string | null;
  /** "expiring": within 3 days. */
  state?: TokenState;
}

export interface ICreatedToken extends IToken {
  token: string;
  profile: Record<string, unknown>;
}

export interface ICommandResult<T = unknown> {
  command: string;
  data: T;
  text: string;
  html: string;
}
