/** The tree: one row per visible node, indented; carets open and close, a click selects. */
import {
  caretDownIcon,
  caretRightIcon,
  folderIcon,
  LabIcon,
  shareIcon,
  spreadsheetIcon,
  tableRowsIcon,
  tocIcon
} from '@jupyterlab/ui-components';
import React from 'react';

import { PanelController } from '../controller';
import { isExpandable, IRow, NodeKind } from '../treeModel';

const ICONS: Record<NodeKind, LabIcon> = {
  group: tocIcon,
  warehouse: spreadsheetIcon,
  namespace: folderIcon,
  table: tableRowsIcon,
  view: tableRowsIcon,
  share: shareIcon,
  schema: folderIcon,
  'shared-table': tableRowsIcon
};

const INDENT = 14;

function Row(props: { row: IRow; controller: PanelController }): JSX.Element {
  const { row, controller } = props;
  const { node, depth, expanded } = row;
  const selected = controller.selected?.id === node.id;
  const loading = controller.tree.loading.has(node.id);
  const error = controller.tree.errors.get(node.id);
  const Caret = expanded ? caretDownIcon : caretRightIcon;
  const Icon = ICONS[node.kind];
  const empty = expanded && node.children?.length === 0 && node.kind !== 'table';
  return (
    <>
      <li
        className={`jp-AIStorLab-row${selected ? ' jp-mod-selected' : ''}`}
        data-id={node.id}
        data-kind={node.kind}
        title={node.detail ? `${node.label}\n${node.detail}` : node.label}
        style={{ paddingLeft: depth * INDENT + 4 }}
        onClick={() => {
          void controller.select(node);
          if (node.kind === 'group') {
            void controller.toggle(node);
          }
        }}
        onDoubleClick={() => isExpandable(node) && node.kind !== 'group' && void controller.toggle(node)}
        onContextMenu={() => void controller.select(node)}
      >
        <span
          className="jp-AIStorLab-caret"
          onClick={event => {
            event.stopPropagation();
            void controller.toggle(node);
          }}
        >
          {isExpandable(node) && <Caret.react tag="span" />}
        </span>
        <Icon.react tag="span" className="jp-AIStorLab-icon" />
        <span className={`jp-AIStorLab-label${node.kind === 'group' ? ' jp-AIStorLab-group' : ''}`}>
          {node.label}
        </span>
        {node.badge && <span className="jp-AIStorLab-badge">{node.badge}</span>}
        {node.detail && node.kind === 'shared-table' && (
          <span className="jp-AIStorLab-source">{node.detail}</span>
        )}
      </li>
      {loading && (
        <li className="jp-AIStorLab-note" style={{ paddingLeft: (depth + 1) * INDENT + 22 }}>
          Loading…
        </li>
      )}
      {error && (
        <li className="jp-AIStorLab-note jp-AIStorLab-rowError" style={{ paddingLeft: (depth + 1) * INDENT + 22 }}>
          {error}
        </li>
      )}
      {empty && !loading && !error && (
        <li className="jp-AIStorLab-note" style={{ paddingLeft: (depth + 1) * INDENT + 22 }}>
          (empty)
        </li>
      )}
    </>
  );
}

export function TreeView(props: { controller: PanelController }): JSX.Element {
  const { controller } = props;
  const rows = controller.tree.rows(controller.filter);
  return (
    <ul className="jp-AIStorLab-tree" role="tree">
      {rows.map(row => (
        <Row key={row.node.id} row={row} controller={controller} />
      ))}
    </ul>
  );
}
