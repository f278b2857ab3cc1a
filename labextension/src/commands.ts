/**
 * The panel's actions as JupyterLab commands: the toolbar, the details' buttons and the context
 * menus all run these. Every change goes through the one command table (POST commands), the same
 * as the `aistor` CLI and the `%aistor` magics.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { Clipboard, Dialog, Notification, showDialog } from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { CommandIDs } from './commandIds';
import { PanelController } from './controller';
import { downloadJSON } from './download';
import { askNewTable, askUntilDone, confirm } from './forms';
import { insertCell } from './notebook';
import { namespaceProblem, sharedNameProblem, shareEntryProblem, shareNameProblem, warehouseNameProblem } from './nameRules';
import { columnsSpec } from './schemaForm';
import { snippet, SNIPPET_KINDS, SNIPPET_LABELS, SnippetKind, snippetKinds } from './snippets';
import { ITreeNode, NodeKind, parentId, SHARES_ID, WAREHOUSES_ID } from './treeModel';
import { ICommandResult, ICreatedToken } from './types';

const EXPIRY = ['30d', '7d', '1d', '12h', '90d', 'never'];

export function registerCommands(
  app: JupyterFrontEnd,
  controller: PanelController,
  tracker: INotebookTracker | null,
  panelId: string
): void {
  const { commands } = app;
  const selected = (...kinds: NodeKind[]): ITreeNode | null => {
    const node = controller.selected;
    return node && kinds.includes(node.kind) ? node : null;
  };
  /** Runs a change; the failure is already in the panel, a notification says it too. */
  const change = async (what: string, argv: string[], reload: string[], done: string) => {
    try {
      const result = await controller.run(what, argv, reload);
      Notification.success(done, { autoClose: 3000 });
      return result;
    } catch {
      Notification.error(controller.error ?? `${what} failed`, { autoClose: 6000 });
      return null;
    }
  };
  /** `change` for a form: answers null when it worked, or the error to show in the form again. */
  const submitted = async (what: string, argv: string[], reload: string[], done: string) =>
    (await change(what, argv, reload, done)) ? null : (controller.error ?? `${what} failed`);
  const add = (id: string, options: Parameters<typeof commands.addCommand>[1]) => commands.addCommand(id, options);
  /** A command that deletes or removes the selected node of one kind once the user confirms. */
  const removal = (id: string, kind: NodeKind, texts: { label: string; caption: string; button: string },
    steps: (node: ITreeNode) => { question: string; progress: string; argv: string[]; reload: string[]; done: string }) =>
    add(id, {
      label: texts.label,
      caption: texts.caption,
      isEnabled: () => !!selected(kind),
      execute: async () => {
        const node = selected(kind);
        const step = node && steps(node);
        if (step && (await confirm(texts.label, step.question, texts.button))) {
          await change(step.progress, step.argv, step.reload, step.done);
        }
      }
    });

  add(CommandIDs.open, {
    label: 'Show the AIStor panel',
    execute: () => app.shell.activateById(panelId)
  });
  add(CommandIDs.refresh, {
    label: 'Refresh',
    caption: 'Refresh the status, warehouses and shares',
    execute: () => controller.refresh()
  });

  add(CommandIDs.createWarehouse, {
    label: 'New warehouse…',
    caption: 'Create a warehouse (and its bucket)',
    execute: async () => {
      await askUntilDone('New warehouse',
        [{ name: 'name', label: 'Name', placeholder: 'analytics', check: warehouseNameProblem }], 'Create',
        values => submitted(`Creating warehouse ${values.name}…`, ['warehouse', 'create', values.name], [WAREHOUSES_ID],
          `Warehouse ${values.name} created.`));
    }
  });
  removal(CommandIDs.deleteWarehouse, 'warehouse',
    { label: 'Delete warehouse', caption: 'Delete this warehouse (it must be empty)', button: 'Delete' },
    node => ({
      question: `Delete the empty warehouse ${node.label}?`,
      progress: `Deleting warehouse ${node.label}…`,
      argv: ['warehouse', 'delete', node.label],
      reload: [WAREHOUSES_ID],
      done: `Warehouse ${node.label} deleted.`
    }));

  add(CommandIDs.createNamespace, {
    label: 'New namespace…',
    caption: 'Create a namespace here',
    isEnabled: () => !!selected('warehouse', 'namespace'),
    execute: async () => {
      const node = selected('warehouse', 'namespace');
      if (!node) {
        return;
      }
      const where = node.namespace ? `${node.warehouse} / ${node.namespace}` : node.warehouse;
      await askUntilDone(`New namespace in ${where}`,
        [{ name: 'name', label: 'Name', placeholder: 'sales', check: namespaceProblem, help: 'Dots make levels: sales.eu' }],
        'Create', values => {
          const namespace = node.namespace ? `${node.namespace}.${values.name}` : values.name;
          return submitted(`Creating namespace ${namespace}…`, ['namespace', 'create', node.warehouse!, namespace], [node.id],
            `Namespace ${namespace} created.`);
        });
    }
  });
  removal(CommandIDs.deleteNamespace, 'namespace',
    { label: 'Delete namespace', caption: 'Delete this namespace (it must be empty)', button: 'Delete' },
    node => ({
      question: `Delete the empty namespace ${node.namespace}?`,
      progress: `Deleting namespace ${node.namespace}…`,
      argv: ['namespace', 'delete', node.warehouse!, node.namespace!],
      reload: [parentId(node)],
      done: `Namespace ${node.namespace} deleted.`
    }));

  add(CommandIDs.createTable, {
    label: 'New table…',
    caption: 'Create an Iceberg table from a schema form',
    isEnabled: () => !!selected('namespace'),
    execute: async () => {
      const node = selected('namespace');
      if (!node) {
        return;
      }
      await askNewTable(`${node.warehouse} / ${node.namespace}`, table => {
        const argv = ['table', 'create', node.warehouse!, node.namespace!, table.name, '--schema', columnsSpec(table.columns)];
        if (table.partition) {
          argv.push('--partition', table.partition);
        }
        return submitted(`Creating table ${table.name}…`, argv, [node.id], `Table ${table.name} created.`);
      });
    }
  });
  removal(CommandIDs.deleteTable, 'table', { label: 'Delete table', caption: 'Drop this table', button: 'Delete' },
    node => ({
      question: `Drop the table ${node.namespace}.${node.table}? Its data files stay.`,
      progress: `Deleting table ${node.table}…`,
      argv: ['table', 'delete', node.warehouse!, node.namespace!, node.table!],
      reload: [parentId(node)],
      done: `Table ${node.table} deleted.`
    }));

  add(CommandIDs.shareTable, {
    label: 'Share…',
    caption: 'Add this table to a new or existing share (Delta Sharing, as UniForm)',
    isEnabled: () => !!selected('table'),
    execute: async () => {
      const node = selected('table');
      if (!node) {
        return;
      }
      const shares = (controller.tree.find(SHARES_ID)?.children ?? []).map(share => share.label);
      await askUntilDone(`Share ${node.namespace}.${node.table}`, [
        { name: 'share', label: 'Share (new or existing)', placeholder: 'sales-share', suggestions: shares, check: shareNameProblem },
        { name: 'schema', label: 'Schema', value: node.namespace!.split('.').pop(), check: sharedNameProblem },
        { name: 'name', label: 'Shared as', value: node.table, check: name => sharedNameProblem(name, 'table') }
      ], 'Share', values => {
        const spec = `${values.name}:uniform:${node.warehouse}:${node.namespace}:${node.table}`;
        const argv = shares.includes(values.share)
          ? ['share', 'update', values.share, '--add', `${values.schema}:${spec}`]
          : ['share', 'create', values.share, values.schema, spec];
        const reload = [SHARES_ID, `share:${values.share}`, `schema:${values.share}/${values.schema}`];
        return submitted(`Sharing ${node.table}…`, argv, reload, `${node.table} is shared in ${values.share}.`);
      });
    }
  });
  add(CommandIDs.createShare, {
    label: 'New share…',
    caption: 'Create a share of a Delta or Iceberg table',
    // args.table: a table entry to start from (a Delta folder's "Share…" gives NAME:delta:BUCKET:PATH).
    execute: async args => {
      await askUntilDone('New share', [
        { name: 'share', label: 'Share', placeholder: 'sales-share', check: shareNameProblem },
        { name: 'schema', label: 'Schema', placeholder: 'sales', check: sharedNameProblem },
        {
          name: 'table',
          label: 'Table',
          value: args.table as string | undefined,
          placeholder: 'orders:uniform:analytics:sales:orders',
          help: 'NAME:delta:BUCKET:PATH or NAME:uniform:WAREHOUSE:NAMESPACE:TABLE',
          check: shareEntryProblem
        },
        { name: 'description', label: 'Description (optional)' }
      ], 'Create', values => submitted(`Creating share ${values.share}…`,
        ['share', 'create', values.share, values.schema, values.table, '--description', values.description],
        [SHARES_ID], `Share ${values.share} created.`));
    }
  });
  removal(CommandIDs.removeShare, 'share',
    { label: 'Remove share', caption: 'Remove this share and its tokens', button: 'Remove' },
    node => ({
      question: `Remove the share ${node.label}? Its tokens stop working.`,
      progress: `Removing share ${node.label}…`,
      argv: ['share', 'remove', node.label],
      reload: [SHARES_ID],
      done: `Share ${node.label} removed.`
    }));
  removal(CommandIDs.removeSharedTable, 'shared-table',
    { label: 'Remove from share', caption: 'Stop sharing this table', button: 'Remove' },
    node => ({
      question: `Stop sharing ${node.schema}.${node.label} in ${node.share}?`,
      progress: `Removing ${node.label}…`,
      argv: ['share', 'update', node.share!, '--remove', `${node.schema}/${node.label}`],
      reload: [parentId(node)],
      done: `${node.label} removed from ${node.share}.`
    }));

  add(CommandIDs.createToken, {
    label: 'New token…',
    caption: 'Create a bearer token and download its profile.share',
    isEnabled: () => !!selected('share'),
    execute: async () => {
      const node = selected('share');
      if (!node) {
        return;
      }
      let result = null as ICommandResult | null;
      await askUntilDone(`New token for ${node.label}`, [
        { name: 'expires', label: 'Expires after', options: EXPIRY, value: '30d' },
        { name: 'description', label: 'Description (optional)', placeholder: 'for the finance team' }
      ], 'Create', async values => {
        const argv = ['share', 'token', 'create', node.label, '--description', values.description];
        if (values.expires !== 'never') {
          argv.push('--expires', values.expires);
        }
        result = await change(`Creating a token for ${node.label}…`, argv, [], 'Token created: profile.share downloaded.');
        return result ? null : (controller.error ?? 'The token could not be created.');
      });
      if (result) {
        const token = result.data as ICreatedToken;
        downloadJSON('profile.share', token.profile);
        const body = new Widget({ node: document.createElement('pre') });
        body.addClass('jp-AIStorLab-tokenText');
        body.node.textContent = result.text;
        await showDialog({ title: 'Token created', body, buttons: [Dialog.okButton({ label: 'Done' })] });
      }
    }
  });
  add(CommandIDs.revokeToken, {
    label: 'Revoke token',
    execute: async args => {
      const node = selected('share');
      const token = args.token as string;
      if (node && token && (await confirm('Revoke token', `Revoke the token ${token.slice(0, 12)}…?`, 'Revoke'))) {
        await change('Revoking the token…', ['share', 'token', 'remove', node.label, token], [], 'Token revoked.');
      }
    }
  });

  const fits = (args: { kind?: unknown }): boolean => {
    const node = controller.selected;
    const kinds = node ? snippetKinds(node) : [];
    return args.kind ? kinds.includes(args.kind as SnippetKind) : kinds.length > 0;
  };
  const snippetOf = (args: { kind?: unknown }): string | null => {
    const node = controller.selected;
    if (!node || !snippetKinds(node).length) {
      return null;
    }
    const kind = (args.kind as SnippetKind) ?? snippetKinds(node)[0];
    return snippet(node, kind);
  };
  add(CommandIDs.copySnippet, {
    label: args => (args.kind ? `Copy ${SNIPPET_LABELS[args.kind as SnippetKind]} snippet` : 'Copy snippet'),
    caption: 'Copy ready code for the selected item',
    isEnabled: fits,
    isVisible: fits,
    execute: args => {
      const code = snippetOf(args);
      if (code) {
        Clipboard.copyToSystem(code);
        Notification.info('Snippet copied.', { autoClose: 2000 });
      }
    }
  });
  add(CommandIDs.insertSnippet, {
    label: args => (args.kind ? `Insert ${SNIPPET_LABELS[args.kind as SnippetKind]} cell` : 'Insert into notebook'),
    caption: 'Insert ready code for the selected item into the active notebook',
    isEnabled: args => !!tracker && fits(args),
    isVisible: fits,
    execute: async args => {
      const code = snippetOf(args);
      if (code && tracker) {
        await insertCell(app, tracker, code);
      }
    }
  });
}

/** Right-click menus of the tree's rows, by node kind. */
export function registerContextMenu(app: JupyterFrontEnd): void {
  const items: [NodeKind, string[]][] = [
    ['warehouse', [CommandIDs.createNamespace, CommandIDs.deleteWarehouse]],
    ['namespace', [CommandIDs.createTable, CommandIDs.createNamespace, CommandIDs.deleteNamespace]],
    ['table', [CommandIDs.shareTable, CommandIDs.deleteTable]],
    ['share', [CommandIDs.createToken, CommandIDs.removeShare]],
    ['shared-table', [CommandIDs.removeSharedTable]]
  ];
  let rank = 0;
  for (const [kind, ids] of items) {
    const selector = `.jp-AIStorLab-row[data-kind="${kind}"]`;
    for (const command of ids) {
      app.contextMenu.addItem({ command, selector, rank: rank++ });
    }
    for (const kindOfSnippet of SNIPPET_KINDS) {
      app.contextMenu.addItem({ command: CommandIDs.insertSnippet, args: { kind: kindOfSnippet }, selector, rank: rank++ });
    }
  }
  app.contextMenu.addItem({ command: CommandIDs.createWarehouse, selector: '.jp-AIStorLab-row[data-id="group:warehouses"]', rank: rank++ });
  app.contextMenu.addItem({ command: CommandIDs.createShare, selector: '.jp-AIStorLab-row[data-id="group:shares"]', rank: rank++ });
}
