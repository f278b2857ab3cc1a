/**
 * Buckets and their listings as tree nodes, like a file browser: folders (prefixes) first, then
 * objects, each by name; a "Load more…" row ends a listing the service answered in pages. Pages
 * merge into what is already shown.
 */
import { ITreeNode } from '../treeModel';
import { IBucket, IObjectListing, TableFormat } from './types';

export const FORMAT_BADGES: Record<TableFormat, string> = { delta: 'Delta', iceberg: 'Iceberg' };

export function bucketNodes(buckets: IBucket[]): ITreeNode[] {
  return [...buckets]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(bucket => ({
      id: `bucket:${bucket.name}`,
      kind: 'bucket',
      label: bucket.name,
      bucket: bucket.name,
      badge: bucket.warehouse ? 'warehouse' : undefined,
      children: null
    }));
}

/** The last segment of a key or prefix: `a/b/` -> `b`, `a/b.csv` -> `b.csv`. */
export function baseName(key: string): string {
  const trimmed = key.replace(/\/$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** A table name made of a file's name: `in/Customer List.csv` -> `customer_list`, `2024.csv` -> `t_2024`. */
export function tableNameOf(key: string): string {
  const name = baseName(key).replace(/\.[^.]*$/, '').toLowerCase().replace(/[^a-z0-9_]+/g, '_');
  return /^[a-z_]/.test(name) ? name : `t_${name}`;
}

/** The id of the node that lists `prefix` of `bucket` (the bucket itself for ''). */
export function listingId(bucket: string, prefix: string): string {
  return prefix ? `prefix:${bucket}/${prefix}` : `bucket:${bucket}`;
}

function pageNodes(listing: IObjectListing): ITreeNode[] {
  const { bucket } = listing;
  const folders: ITreeNode[] = listing.folders.map(folder => ({
    id: `prefix:${bucket}/${folder.prefix}`,
    kind: 'prefix',
    label: baseName(folder.prefix),
    bucket,
    key: folder.prefix,
    badge: folder.table ? FORMAT_BADGES[folder.table] : undefined,
    tableFormat: folder.table ?? undefined,
    children: null
  }));
  const objects: ITreeNode[] = listing.objects.map(object => ({
    id: `object:${bucket}/${object.key}`,
    kind: 'object',
    label: baseName(object.key),
    bucket,
    key: object.key,
    children: []
  }));
  return [...folders, ...objects];
}

function moreNode(listing: IObjectListing, token: string): ITreeNode {
  return {
    id: `more:${listing.bucket}/${listing.prefix}`,
    kind: 'more',
    label: 'Load more…',
    bucket: listing.bucket,
    key: listing.prefix,
    nextToken: token,
    children: []
  };
}

/**
 * The children of a bucket or prefix after one more page: `shown` (null for the first page) with
 * the page's folders and objects merged in, folders first, each sorted by key, and a "Load more…"
 * row at the end while the listing goes on.
 */
export function listingNodes(shown: ITreeNode[] | null, listing: IObjectListing): ITreeNode[] {
  const byId = new Map<string, ITreeNode>();
  for (const node of [...(shown ?? []), ...pageNodes(listing)]) {
    if (node.kind !== 'more') {
      byId.set(node.id, node);
    }
  }
  const order = (node: ITreeNode) => (node.kind === 'prefix' ? 0 : 1);
  const merged = [...byId.values()].sort(
    (a, b) => order(a) - order(b) || (a.key! < b.key! ? -1 : a.key! > b.key! ? 1 : 0)
  );
  return listing.nextToken ? [...merged, moreNode(listing, listing.nextToken)] : merged;
}

/** The `s3://` address of a bucket, prefix or object node. */
export function s3Path(node: ITreeNode): string {
  return `s3://${node.bucket}/${node.key ?? ''}`;
}

/** Where a dropped or chosen file goes: under the prefix of a bucket or prefix node, next to an
 * object (in its prefix). */
export function uploadPrefix(node: ITreeNode): string {
  if (node.kind === 'prefix') {
    return node.key!;
  }
  if (node.kind === 'object') {
    const key = node.key!;
    return key.slice(0, key.lastIndexOf('/') + 1);
  }
  return '';
}

/** The node listing an upload's target folder, to reload once it is done. */
export function uploadTargetId(node: ITreeNode): string {
  return listingId(node.bucket!, uploadPrefix(node));
}
