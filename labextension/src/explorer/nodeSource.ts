/** The explorer source a node of the panel's tree stands for, if it opens in the explorer. */
import { ITreeNode } from '../treeModel';
import { ExplorerSource } from './source';

export function sourceOfNode(node: ITreeNode | null): ExplorerSource | null {
  switch (node?.kind) {
    case 'table':
      return { kind: 'iceberg', warehouse: node.warehouse!, namespace: node.namespace!, table: node.table! };
    case 'view':
      return { kind: 'view', warehouse: node.warehouse!, namespace: node.namespace!, view: node.table! };
    case 'shared-table':
      return { kind: 'shared', share: node.share!, schema: node.schema!, table: node.label };
    case 'prefix':
      return node.tableFormat === 'delta' && node.bucket && node.key ? { kind: 'delta', bucket: node.bucket, path: node.key } : null;
    default:
      return null;
  }
}
