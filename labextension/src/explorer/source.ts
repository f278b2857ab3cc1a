/** What the table explorer can show, and how a tab of it is named and found again. */

export type ExplorerSource =
  | { kind: 'iceberg'; warehouse: string; namespace: string; table: string }
  | { kind: 'view'; warehouse: string; namespace: string; view: string }
  | { kind: 'delta'; bucket: string; path: string }
  | { kind: 'shared'; share: string; schema: string; table: string };

/** The fields that identify a source of each kind, in order. */
const FIELDS: Record<ExplorerSource['kind'], string[]> = {
  iceberg: ['warehouse', 'namespace', 'table'],
  view: ['warehouse', 'namespace', 'view'],
  delta: ['bucket', 'path'],
  shared: ['share', 'schema', 'table']
};

const ID_PREFIX = 'aistor-explorer:';

/** A stable id: the same source always gets the same tab (parts escaped, so "/" in a path is safe). */
export function sourceId(source: ExplorerSource): string {
  const values = FIELDS[source.kind].map(field => (source as Record<string, string>)[field]);
  return `${ID_PREFIX}${[source.kind, ...values].map(encodeURIComponent).join('/')}`;
}

/** The tab's title: the table's own name. */
export function sourceTitle(source: ExplorerSource): string {
  switch (source.kind) {
    case 'iceberg':
    case 'shared':
      return source.table;
    case 'view':
      return source.view;
    case 'delta':
      return source.path.replace(/\/+$/, '').split('/').pop() || source.bucket;
  }
}

/** Where the source is, in full (the tab's tooltip and the explorer's heading). */
export function sourcePath(source: ExplorerSource): string {
  switch (source.kind) {
    case 'iceberg':
      return `${source.warehouse} / ${source.namespace} / ${source.table}`;
    case 'view':
      return `${source.warehouse} / ${source.namespace} / ${source.view} (view)`;
    case 'delta':
      return `s3://${source.bucket}/${source.path.replace(/^\/+/, '')} (Delta)`;
    case 'shared':
      return `${source.share} / ${source.schema} / ${source.table} (shared)`;
  }
}
