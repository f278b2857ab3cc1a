/**
 * The tree the panel shows, without any DOM: warehouses -> namespaces (nested) -> tables and views,
 * shares -> schemas -> tables, and buckets -> prefixes -> objects (buckets/listing.ts). Children
 * load lazily: `children === null` means "not asked yet".
 */
import { INamespaceChildren, IShareInfo, ISharedTable, IShareSummary } from './types';

export type NodeKind =
  | 'group'
  | 'warehouse'
  | 'namespace'
  | 'table'
  | 'view'
  | 'share'
  | 'schema'
  | 'shared-table'
  | 'bucket'
  | 'prefix'
  | 'object'
  | 'more';

export interface ITreeNode {
  id: string;
  kind: NodeKind;
  label: string;
  /** Catalog coordinates (warehouse, dotted namespace, table or view). */
  warehouse?: string;
  namespace?: string;
  table?: string;
  /** Sharing coordinates. */
  share?: string;
  schema?: string;
  shared?: ISharedTable;
  /** Store coordinates: a bucket, and an object's key or a prefix (ending in `/`). */
  bucket?: string;
  key?: string;
  /** A prefix that is a table's root (its `_delta_log/`, its Iceberg `metadata/`). */
  tableFormat?: 'delta' | 'iceberg';
  /** A "Load more…" row: where the listing of its parent goes on. */
  nextToken?: string;
  /** A short word shown after the label: Iceberg, Delta, view... */
  badge?: string;
  /** The longer text of the tooltip: where a shared table comes from, a description. */
  detail?: string;
  children: ITreeNode[] | null;
}

export const WAREHOUSES_ID = 'group:warehouses';
export const SHARES_ID = 'group:shares';
export const BUCKETS_ID = 'group:buckets';

const LEAF_KINDS: NodeKind[] = ['table', 'view', 'shared-table', 'object', 'more'];

export function isExpandable(node: ITreeNode): boolean {
  return !LEAF_KINDS.includes(node.kind);
}

export function warehouseNodes(names: string[]): ITreeNode[] {
  return [...names].sort().map(name => ({
    id: `warehouse:${name}`,
    kind: 'warehouse',
    label: name,
    warehouse: name,
    children: null
  }));
}

/** What is inside a warehouse (`namespace` undefined) or a namespace: namespaces first, then
 * tables, then views, each sorted by name. */
export function namespaceContentNodes(
  warehouse: string,
  namespace: string | undefined,
  children: INamespaceChildren
): ITreeNode[] {
  const byLabel = (a: ITreeNode, b: ITreeNode) => a.label.localeCompare(b.label);
  const namespaces: ITreeNode[] = children.namespaces
    .map(levels => ({
      id: `namespace:${warehouse}/${levels.join('.')}`,
      kind: 'namespace' as const,
      label: levels[levels.length - 1],
      warehouse,
      namespace: levels.join('.'),
      children: null
    }))
    .sort(byLabel);
  const leaf = (kind: 'table' | 'view', name: string): ITreeNode => ({
    id: `${kind}:${warehouse}/${namespace}/${name}`,
    kind,
    label: name,
    warehouse,
    namespace,
    table: name,
    badge: kind === 'view' ? 'view' : undefined,
    children: []
  });
  const tables = children.tables.map(name => leaf('table', name)).sort(byLabel);
  const views = children.views.map(name => leaf('view', name)).sort(byLabel);
  return [...namespaces, ...tables, ...views];
}

export function shareNodes(shares: IShareSummary[]): ITreeNode[] {
  return [...shares]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(share => ({
      id: `share:${share.name}`,
      kind: 'share',
      label: share.name,
      share: share.name,
      detail: share.description || undefined,
      children: null
    }));
}

/** Where a shared table's data comes from, in one line. */
export function sharedTableSource(table: ISharedTable): string {
  return table.kind === 'delta'
    ? `s3://${table.bucket}/${table.location}`
    : `${table.warehouse} / ${table.namespace} / ${table.table}`;
}

/** A share's schemas with their tables, all loaded: the share's info answers them at once. */
export function shareContentNodes(info: IShareInfo): ITreeNode[] {
  return info.schemas.map(schema => ({
    id: `schema:${info.name}/${schema.name}`,
    kind: 'schema',
    label: schema.name,
    share: info.name,
    schema: schema.name,
    children: schema.tables.map(table => ({
      id: `shared-table:${info.name}/${schema.name}/${table.name}`,
      kind: 'shared-table',
      label: table.name,
      share: info.name,
      schema: schema.name,
      shared: table,
      badge: table.kind === 'delta' ? 'Delta' : 'Iceberg',
      detail: sharedTableSource(table),
      children: []
    }))
  }));
}

/** The id of the node whose children change when `node` is created inside it or removed. */
export function parentId(node: ITreeNode): string {
  switch (node.kind) {
    case 'warehouse':
      return WAREHOUSES_ID;
    case 'share':
      return SHARES_ID;
    case 'bucket':
      return BUCKETS_ID;
    case 'prefix':
    case 'object':
    case 'more':
      return storeParentId(node.bucket!, node.key ?? '');
    case 'schema':
    case 'shared-table':
      return `share:${node.share}`;
    default: {
      const levels = (node.namespace ?? '').split('.').filter(Boolean);
      const parent = node.kind === 'namespace' ? levels.slice(0, -1) : levels;
      return parent.length ? `namespace:${node.warehouse}/${parent.join('.')}` : `warehouse:${node.warehouse}`;
    }
  }
}

/** The bucket or prefix node listing `key` (an object's key, or a prefix ending in `/`). */
export function storeParentId(bucket: string, key: string): string {
  const cut = key.replace(/\/$/, '').lastIndexOf('/');
  return cut < 0 ? `bucket:${bucket}` : `prefix:${bucket}/${key.slice(0, cut + 1)}`;
}

export interface IRow {
  node: ITreeNode;
  depth: number;
  expanded: boolean;
}

/** The tree's state: its nodes, which are expanded, loading or failed. */
export class TreeModel {
  readonly roots: ITreeNode[] = [
    { id: WAREHOUSES_ID, kind: 'group', label: 'Warehouses', children: null },
    { id: SHARES_ID, kind: 'group', label: 'Shares', children: null },
    { id: BUCKETS_ID, kind: 'group', label: 'Buckets', children: null }
  ];
  readonly expanded = new Set<string>([WAREHOUSES_ID, SHARES_ID, BUCKETS_ID]);
  readonly loading = new Set<string>();
  readonly errors = new Map<string, string>();

  find(id: string, nodes: ITreeNode[] = this.roots): ITreeNode | undefined {
    for (const node of nodes) {
      if (node.id === id) {
        return node;
      }
      const found = node.children ? this.find(id, node.children) : undefined;
      if (found) {
        return found;
      }
    }
    return undefined;
  }

  /** Replace a node's children; expanded descendants that are gone are forgotten. */
  setChildren(id: string, children: ITreeNode[]): void {
    const node = this.find(id);
    if (!node) {
      return;
    }
    const previous = new Map((node.children ?? []).map(child => [child.id, child]));
    // Keep what was loaded below a child that is still there: a refresh reloads it separately.
    node.children = children.map(child => {
      const kept = previous.get(child.id);
      return kept && kept.children && child.children === null
        ? { ...child, children: kept.children }
        : child;
    });
    this.errors.delete(id);
  }

  setError(id: string, message: string): void {
    this.errors.set(id, message);
  }

  /** Expanded nodes whose children are loaded or asked for, outermost first. */
  expandedIds(): string[] {
    const ids: string[] = [];
    const visit = (nodes: ITreeNode[]) => {
      for (const node of nodes) {
        if (this.expanded.has(node.id)) {
          ids.push(node.id);
          visit(node.children ?? []);
        }
      }
    };
    visit(this.roots);
    return ids;
  }

  /** The rows to draw, top to bottom: the roots and the children of expanded nodes. */
  rows(): IRow[] {
    const rows: IRow[] = [];
    const visit = (nodes: ITreeNode[], depth: number) => {
      for (const node of nodes) {
        const expanded = this.expanded.has(node.id);
        rows.push({ node, depth, expanded });
        if (expanded && node.children) {
          visit(node.children, depth + 1);
        }
      }
    };
    visit(this.roots, 0);
    return rows;
  }
}
