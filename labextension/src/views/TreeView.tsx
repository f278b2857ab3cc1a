/**
 * The tree: one row per visible node, indented; carets open and close, a click selects. It is an
 * ARIA tree: one row at a time takes the focus, the arrow keys move it (Right opens or goes in,
 * Left closes or goes out), Home/End jump, Enter or Space select (and open a folder). Files
 * dropped on a bucket, folder or object (from the desktop or the file browser) are uploaded there.
 */
import {
  caretDownIcon,
  caretRightIcon,
  ellipsesIcon,
  fileIcon,
  folderFavoriteIcon,
  folderIcon,
  LabIcon,
  shareIcon,
  spreadsheetIcon,
  tableRowsIcon,
  tocIcon
} from '@jupyterlab/ui-components';
import { CommandRegistry } from '@lumino/commands';
import React, { useEffect, useRef, useState } from 'react';

import { carriesFiles, takesUploads, uploadInto } from '../buckets/drop';
import { listenForFileBrowserDrops } from '../buckets/fileBrowserDrop';
import { CommandIDs } from '../commandIds';
import { PanelController } from '../controller';
import { sourceOfNode } from '../explorer/nodeSource';
import { isExpandable, IRow, ITreeNode, NodeKind } from '../treeModel';

const ICONS: Record<NodeKind, LabIcon> = {
  group: tocIcon,
  warehouse: spreadsheetIcon,
  namespace: folderIcon,
  table: tableRowsIcon,
  view: tableRowsIcon,
  share: shareIcon,
  schema: folderIcon,
  'shared-table': tableRowsIcon,
  bucket: folderFavoriteIcon,
  prefix: folderIcon,
  object: fileIcon,
  more: ellipsesIcon
};

const INDENT = 14;

interface IRowProps {
  row: IRow;
  controller: PanelController;
  commands: CommandRegistry;
  focused: boolean;
  dropping: boolean;
  setFocus: (id: string) => void;
  setDropping: (id: string | null) => void;
  element: (id: string, node: HTMLElement | null) => void;
}

function Row(props: IRowProps): JSX.Element {
  const { row, controller, commands, focused, dropping, setFocus, setDropping } = props;
  const { node, depth, expanded } = row;
  const selected = controller.selected?.id === node.id;
  const loading = controller.tree.loading.has(node.id);
  const error = controller.tree.errors.get(node.id);
  const Caret = expanded ? caretDownIcon : caretRightIcon;
  const Icon = ICONS[node.kind];
  const expandable = isExpandable(node);
  const empty = expanded && node.children?.length === 0;
  const note = (className: string, text: string) => (
    <li role="none" className={className} style={{ paddingLeft: (depth + 1) * INDENT + 22 }}>
      {text}
    </li>
  );
  const classes = ['jp-AIStorLab-row', selected && 'jp-mod-selected', dropping && 'jp-mod-dropTarget', node.kind === 'more' && 'jp-AIStorLab-more'];
  return (
    <>
      <li
        ref={element => props.element(node.id, element)}
        className={classes.filter(Boolean).join(' ')}
        role="treeitem"
        aria-level={depth + 1}
        aria-selected={selected}
        aria-expanded={expandable ? expanded : undefined}
        aria-busy={loading || undefined}
        tabIndex={focused ? 0 : -1}
        data-id={node.id}
        data-kind={node.kind}
        title={node.detail ? `${node.label}\n${node.detail}` : node.label}
        style={{ paddingLeft: depth * INDENT + 4 }}
        onClick={() => {
          setFocus(node.id);
          void controller.select(node);
          if (node.kind === 'group') {
            void controller.toggle(node);
          }
        }}
        onDoubleClick={() => {
          // A table (an Iceberg table, a view, a shared or a Delta table) opens in the explorer.
          const source = sourceOfNode(node);
          if (source) {
            void commands.execute(CommandIDs.openExplorer, { source });
          } else if (expandable && node.kind !== 'group') {
            void controller.toggle(node);
          }
        }}
        onContextMenu={() => void controller.select(node)}
        onDragOver={event => {
          if (takesUploads(node) && carriesFiles(event)) {
            event.preventDefault();
            event.dataTransfer.dropEffect = 'copy';
            setDropping(node.id);
          }
        }}
        onDragLeave={() => setDropping(null)}
        onDrop={event => {
          if (takesUploads(node) && carriesFiles(event)) {
            event.preventDefault();
            setDropping(null);
            void uploadInto(controller, node, [...event.dataTransfer.files]);
          }
        }}
      >
        <span
          className="jp-AIStorLab-caret"
          onClick={event => {
            event.stopPropagation();
            void controller.toggle(node);
          }}
        >
          {expandable && <Caret.react tag="span" />}
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
      {loading && note('jp-AIStorLab-note', 'Loading…')}
      {error && note('jp-AIStorLab-note jp-AIStorLab-rowError', error)}
      {empty && !loading && !error && note('jp-AIStorLab-note', '(empty)')}
    </>
  );
}

/** The row a key moves the focus to, or null when the key does something else. */
function moveFocus(key: string, rows: IRow[], index: number): number | null {
  const row = rows[index];
  switch (key) {
    case 'ArrowDown':
      return Math.min(index + 1, rows.length - 1);
    case 'ArrowUp':
      return Math.max(index - 1, 0);
    case 'Home':
      return 0;
    case 'End':
      return rows.length - 1;
    case 'ArrowRight':
      return row.expanded && row.node.children?.length ? index + 1 : null;
    case 'ArrowLeft': {
      if (row.expanded && isExpandable(row.node)) {
        return null;
      }
      const parent = rows.slice(0, index).map(r => r.depth).lastIndexOf(row.depth - 1);
      return parent >= 0 ? parent : index;
    }
    default:
      return null;
  }
}

export function TreeView(props: { controller: PanelController; commands: CommandRegistry }): JSX.Element {
  const { controller, commands } = props;
  const rows = controller.tree.rows();
  const [focusedId, setFocusedId] = useState<string | null>(null);
  const [dropping, setDropping] = useState<string | null>(null);
  const elements = useRef(new Map<string, HTMLElement>());
  const tree = useRef<HTMLUListElement>(null);
  useEffect(() => listenForFileBrowserDrops(tree.current!, controller), [controller]);
  const focusedIndex = Math.max(0, rows.findIndex(row => row.node.id === focusedId));

  const focusRow = (id: string) => {
    setFocusedId(id);
    elements.current.get(id)?.focus();
  };
  useEffect(() => {
    // A search result was revealed: show it and give it the focus.
    const id = controller.revealed;
    const element = id && elements.current.get(id);
    if (element) {
      controller.revealed = null;
      element.scrollIntoView({ block: 'nearest' });
      focusRow(id);
    }
  });

  const onKeyDown = (event: React.KeyboardEvent) => {
    const row = rows[focusedIndex];
    if (!row) {
      return;
    }
    const node: ITreeNode = row.node;
    const target = moveFocus(event.key, rows, focusedIndex);
    if (target !== null) {
      focusRow(rows[target].node.id);
    } else if (event.key === 'ArrowRight' && isExpandable(node) && !row.expanded) {
      void controller.toggle(node);
    } else if (event.key === 'ArrowLeft' && row.expanded) {
      void controller.toggle(node);
    } else if (event.key === 'Enter' || event.key === ' ') {
      void controller.select(node);
      if (isExpandable(node)) {
        void controller.toggle(node);
      }
    } else {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
  };

  return (
    <ul ref={tree} className="jp-AIStorLab-tree" role="tree" aria-label="Warehouses, shares and buckets" onKeyDown={onKeyDown}>
      {rows.map((row, index) => (
        <Row
          key={row.node.id}
          row={row}
          controller={controller}
          commands={commands}
          focused={index === focusedIndex}
          dropping={dropping === row.node.id}
          setFocus={setFocusedId}
          setDropping={setDropping}
          element={(id, element) => (element ? elements.current.set(id, element) : elements.current.delete(id))}
        />
      ))}
    </ul>
  );
}
