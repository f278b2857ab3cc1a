/**
 * The tree the panel shows, without any DOM: warehouses -> namespaces (nested) -> tables and views,
 * and shares -> schemas -> tables. Children load lazily: `children === null` means "not asked yet".
 * The filter keeps the nodes whose label matches and the path to them.
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
  | 'shared-table';

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
  /** A short word shown after the label: Iceberg, Delta, view... */
  badge?: string;
  /** The longer text of the tooltip: where a shared table comes from, a description. */
  detail?: string;
  children: ITreeNode[] | null;
}

export const WAREHOUSES_ID = 'group:warehouses';
export const SHARES_ID = 'group:shares';

const LEAF_KINDS: NodeKind[] = ['table', 'view', 'shared-table'];

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

export interface IRow {
  node: ITreeNode;
  depth: number;
  expanded: boolean;
}

/** The tree's state: its nodes, which are expanded, loading or failed. */
export class TreeModel {
  readonly roots: ITreeNode[] = [
    { id: WAREHOUSES_ID, kind: 'group', label: 'Warehouses', children: null },
    { id: SHARES_ID, kind: 'group', label: 'Shares', children: null }
  ];
  readonly expanded = new Set<string>([WAREHOUSES_ID, SHARES_ID]);
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

  /** The rows to draw, top to bottom. With a filter, only matches and their ancestors show. */
  rows(filter = ''): IRow[] {
    const needle = filter.trim().toLowerCase();
    const rows: IRow[] = [];
    const matches = (node: ITreeNode): boolean =>
      node.label.toLowerCase().includes(needle) ||
      (node.children ?? []).some(child => matches(child));
    const visit = (nodes: ITreeNode[], depth: number, parentMatched: boolean) => {
      for (const node of nodes) {
        const selfMatched = !needle || node.label.toLowerCase().includes(needle);
        const shown = parentMatched || node.kind === 'group' || matches(node);
        if (!shown) {
          continue;
        }
        // A filter opens the path to every match; a matching node shows its subtree as it is.
        const opensForFilter =
          !!needle && !selfMatched && (node.children ?? []).some(matches);
        const expanded = this.expanded.has(node.id) || opensForFilter;
        rows.push({ node, depth, expanded });
        if (expanded && node.children) {
          visit(node.children, depth + 1, parentMatched || (!!needle && selfMatched));
        }
      }
    };
    visit(this.roots, 0, !needle);
    return rows;
  }
}
