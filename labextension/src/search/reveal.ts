/**
 * Where a search result sits in the panel's tree: the ids of the nodes to expand, outermost
 * first, and the id of the node to select. The same ids the tree's nodes have (treeModel.ts,
 * buckets/listing.ts).
 */
import { BUCKETS_ID, SHARES_ID, WAREHOUSES_ID } from '../treeModel';
import { ISearchResult } from './types';

export interface ITreePath {
  ancestors: string[];
  target: string;
}

function namespaceIds(warehouse: string, namespace: string): string[] {
  const levels = namespace.split('.');
  return levels.map((_, i) => `namespace:${warehouse}/${levels.slice(0, i + 1).join('.')}`);
}

function prefixIds(bucket: string, path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  return parts.map((_, i) => `prefix:${bucket}/${parts.slice(0, i + 1).join('/')}/`);
}

export function treePath(result: ISearchResult): ITreePath {
  const path = (ids: string[]): ITreePath => ({ ancestors: ids.slice(0, -1), target: ids[ids.length - 1] });
  const warehouse = `warehouse:${result.warehouse}`;
  switch (result.kind) {
    case 'warehouse':
      return path([WAREHOUSES_ID, warehouse]);
    case 'namespace':
      return path([WAREHOUSES_ID, warehouse, ...namespaceIds(result.warehouse!, result.namespace!)]);
    case 'table':
    case 'view':
      return path([
        WAREHOUSES_ID,
        warehouse,
        ...namespaceIds(result.warehouse!, result.namespace!),
        `${result.kind}:${result.warehouse}/${result.namespace}/${resultName(result)}`
      ]);
    case 'share':
      return path([SHARES_ID, `share:${result.share}`]);
    case 'shared-table':
      return path([
        SHARES_ID,
        `share:${result.share}`,
        `schema:${result.share}/${result.schema}`,
        `shared-table:${result.share}/${result.schema}/${result.table}`
      ]);
    case 'bucket':
      return path([BUCKETS_ID, `bucket:${result.bucket}`, ...prefixIds(result.bucket!, result.path ?? '')]);
  }
}

/** A result's own name: a table's, a namespace's last level, a bucket's folder. */
export function resultName(result: ISearchResult): string {
  switch (result.kind) {
    case 'warehouse':
      return result.warehouse!;
    case 'namespace':
      return result.namespace!.split('.').pop()!;
    case 'table':
    case 'shared-table':
      return result.table!;
    case 'view':
      return result.view!;
    case 'share':
      return result.share!;
    case 'bucket':
      return result.path ? result.path.replace(/\/$/, '').split('/').pop()! : result.bucket!;
  }
}

/** Where a result is, in one line: `analytics / sales.eu`, `s3://lake/tables/`. */
export function resultPlace(result: ISearchResult): string {
  switch (result.kind) {
    case 'warehouse':
    case 'share':
      return '';
    case 'namespace':
      return result.warehouse!;
    case 'table':
    case 'view':
      return `${result.warehouse} / ${result.namespace}`;
    case 'shared-table':
      return `${result.share} / ${result.schema}`;
    case 'bucket':
      return `s3://${result.bucket}/${result.path ?? ''}`;
  }
}

export const SEARCH_KIND_LABELS: Record<ISearchResult['kind'], string> = {
  warehouse: 'warehouse',
  namespace: 'namespace',
  table: 'table',
  view: 'view',
  share: 'share',
  'shared-table': 'shared table',
  bucket: 'bucket'
};
