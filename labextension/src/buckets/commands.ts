/**
 * The store's actions on the selected bucket, folder or object: upload (a file picker; dropping
 * files does the same), download, copy its s3:// path, delete (after a question that says how
 * much goes), for a Delta table's folder "Open as table" and "Share…", and for a CSV, TSV, Parquet
 * or JSON-lines object "New table from this file…" (`aistor table import`).
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { Clipboard, Notification } from '@jupyterlab/apputils';

import { listWarehouses } from '../api';
import { CommandIDs } from '../commandIds';
import { PanelController } from '../controller';
import { askUntilDone, confirm } from '../forms';
import { namespaceProblem, tableNameProblem } from '../nameRules';
import { ITreeNode, NodeKind, parentId } from '../treeModel';
import { deleteObjects } from './api';
import { countObjects } from './count';
import { uploadInto } from './drop';
import { baseName, s3Path, tableNameOf } from './listing';
import { downloadObject } from './transfer';

/** A Delta table's folder as its path in the bucket, without the trailing slash. */
function deltaPath(node: ITreeNode): string {
  return node.key!.replace(/\/$/, '');
}

/** The files `aistor table import` reads. */
const IMPORTABLE = /\.(csv|tsv|parquet|jsonl|json)$/i;

/** Asks for files with the browser's picker; an empty list when the user cancels. */
function pickFiles(): Promise<File[]> {
  return new Promise(resolve => {
    const input = document.createElement('input');
    input.type = 'file';
    input.multiple = true;
    input.className = 'jp-AIStorLab-filePicker';
    input.setAttribute('aria-label', 'Files to upload');
    input.onchange = () => {
      resolve([...(input.files ?? [])]);
      input.remove();
    };
    input.oncancel = () => {
      resolve([]);
      input.remove();
    };
    // In the document, so a test (or an assistive tool) can reach it while the picker is open.
    document.body.append(input);
    input.click();
  });
}

export function registerBucketCommands(app: JupyterFrontEnd, controller: PanelController): void {
  const { commands } = app;
  const selected = (...kinds: NodeKind[]): ITreeNode | null => {
    const node = controller.selected;
    return node && kinds.includes(node.kind) ? node : null;
  };
  const deltaFolder = () => {
    const node = selected('prefix');
    return node?.tableFormat === 'delta' ? node : null;
  };

  commands.addCommand(CommandIDs.uploadObjects, {
    label: 'Upload…',
    caption: 'Upload files here (or drop them on a bucket or folder)',
    isEnabled: () => !!selected('bucket', 'prefix'),
    execute: async () => {
      const node = selected('bucket', 'prefix');
      const files = node ? await pickFiles() : [];
      if (node && files.length) {
        const done = await uploadInto(controller, node, files);
        if (done === files.length) {
          Notification.success(`${done} file${done === 1 ? '' : 's'} uploaded to ${s3Path(node)}`, { autoClose: 3000 });
        } else {
          Notification.error(`${files.length - done} of ${files.length} uploads failed: see the panel.`, { autoClose: 6000 });
        }
      }
    }
  });
  commands.addCommand(CommandIDs.downloadObject, {
    label: 'Download',
    caption: 'Download this object',
    isEnabled: () => !!selected('object'),
    execute: () => {
      const node = selected('object');
      if (node) {
        downloadObject(node.bucket!, node.key!);
      }
    }
  });
  commands.addCommand(CommandIDs.copyS3Path, {
    label: 'Copy s3:// path',
    caption: 'Copy the s3:// address of this bucket, folder or object',
    isEnabled: () => !!selected('bucket', 'prefix', 'object'),
    execute: () => {
      const node = selected('bucket', 'prefix', 'object');
      if (node) {
        Clipboard.copyToSystem(s3Path(node));
        Notification.info(`Copied ${s3Path(node)}`, { autoClose: 2000 });
      }
    }
  });
  commands.addCommand(CommandIDs.deleteObjects, {
    label: 'Delete…',
    caption: 'Delete this object, or everything in this folder',
    isEnabled: () => !!selected('prefix', 'object'),
    execute: async () => {
      const node = selected('prefix', 'object');
      if (!node) {
        return;
      }
      try {
        let question = `Delete ${s3Path(node)}?`;
        if (node.kind === 'prefix') {
          const { count, complete } = await controller.act(`Counting the objects under ${s3Path(node)}…`, () =>
            countObjects(node.bucket!, node.key!)
          );
          question = `Delete ${complete ? '' : 'more than '}${count} object${count === 1 ? '' : 's'} under ${s3Path(node)}?`;
        }
        if (!(await confirm('Delete', question, 'Delete'))) {
          return;
        }
        const { deleted } = await controller.act(`Deleting ${s3Path(node)}…`, () => deleteObjects(node.bucket!, node.key!),
          [parentId(node)]);
        Notification.success(`${deleted} object${deleted === 1 ? '' : 's'} deleted.`, { autoClose: 3000 });
      } catch {
        Notification.error(controller.error ?? 'The deletion failed.', { autoClose: 6000 });
      }
    }
  });
  const importable = () => {
    const node = selected('object');
    return node && IMPORTABLE.test(node.key!) ? node : null;
  };
  commands.addCommand(CommandIDs.importTable, {
    label: 'New table from this file…',
    caption: 'Create an Iceberg table with the columns and rows of this CSV, TSV, Parquet or JSON-lines file',
    isEnabled: () => !!importable(),
    isVisible: () => !!importable(),
    execute: async () => {
      const node = importable();
      if (!node) {
        return;
      }
      const warehouses = await controller.act('Listing warehouses…', listWarehouses).catch(() => null);
      if (!warehouses?.length) {
        Notification.warning(warehouses ? 'Create a warehouse first: the new table goes into one.' : controller.error ?? '',
          { autoClose: 6000 });
        return;
      }
      const source = s3Path(node);
      const values = await askUntilDone(`New table from ${baseName(node.key!)}`, [
        { name: 'warehouse', label: 'Warehouse', options: warehouses,
          value: [node.bucket!, controller.status?.warehouse].find(name => name && warehouses.includes(name)) ?? warehouses[0] },
        { name: 'namespace', label: 'Namespace', value: 'default', check: namespaceProblem, help: 'Created if missing' },
        { name: 'table', label: 'Table', value: tableNameOf(node.key!), check: tableNameProblem }
      ], 'Create', async ({ warehouse, namespace, table }) => {
        try {
          await controller.run(`Creating table ${namespace}.${table} from ${source}…`,
            ['table', 'import', warehouse, namespace, table, source], [`warehouse:${warehouse}`]);
          return null;
        } catch {
          return controller.error ?? 'The import failed.';
        }
      });
      if (values) {
        const { warehouse, namespace, table } = values;
        Notification.success(`Table ${namespace}.${table} created from ${source}.`, { autoClose: 3000 });
        await commands.execute(CommandIDs.openExplorer, { source: { kind: 'iceberg', warehouse, namespace, table } });
      }
    }
  });
  commands.addCommand(CommandIDs.openDeltaTable, {
    label: 'Open as table',
    caption: 'Open this Delta table in the table explorer (read-only)',
    isEnabled: () => !!deltaFolder(),
    isVisible: () => !!deltaFolder(),
    execute: () => {
      const node = deltaFolder();
      if (node) {
        const source = { kind: 'delta', bucket: node.bucket!, path: deltaPath(node) };
        return commands.execute(CommandIDs.openExplorer, { source });
      }
    }
  });
  commands.addCommand(CommandIDs.shareDeltaTable, {
    label: 'Share…',
    caption: 'Create a share of this Delta table',
    isEnabled: () => !!deltaFolder(),
    isVisible: () => !!deltaFolder(),
    execute: () => {
      const node = deltaFolder();
      if (node) {
        // A shared name is letters, digits, _ and -: the folder's name made into one.
        const name = baseName(node.key!).replace(/[^A-Za-z0-9_-]/g, '_').replace(/^-/, '_');
        return commands.execute(CommandIDs.createShare, { table: `${name}:delta:${node.bucket}:${deltaPath(node)}` });
      }
    }
  });
}

/** The actions of each store node, for its details (whose "Open" button the explorer adds). */
export const STORE_ACTIONS: Partial<Record<NodeKind, string[]>> = {
  bucket: [CommandIDs.uploadObjects, CommandIDs.copyS3Path],
  prefix: [CommandIDs.shareDeltaTable, CommandIDs.uploadObjects, CommandIDs.copyS3Path, CommandIDs.deleteObjects],
  object: [CommandIDs.importTable, CommandIDs.downloadObject, CommandIDs.copyS3Path, CommandIDs.deleteObjects]
};

/** The right-click menus of store rows: their actions, "Open as table" first on a Delta folder. */
export function registerBucketContextMenu(app: JupyterFrontEnd): void {
  let rank = 0;
  for (const [kind, ids] of Object.entries(STORE_ACTIONS)) {
    for (const command of kind === 'prefix' ? [CommandIDs.openDeltaTable, ...ids!] : ids!) {
      app.contextMenu.addItem({ command, selector: `.jp-AIStorLab-row[data-kind="${kind}"]`, rank: rank++ });
    }
  }
}
