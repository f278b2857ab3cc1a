/** The explorer source a node of the panel's tree stands for, if it opens in the explorer (a Delta
 * table's folder opens through the store's own command, with its source). */
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
    default:
      return null;
  }
}
