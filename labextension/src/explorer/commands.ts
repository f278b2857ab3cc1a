/**
 * The `open-explorer` command: one main-area tab per source, found again when it is open, restored
 * with the layout. Without a `source` argument it opens the panel's selected table, view, shared
 * table or Delta table (the context menu's "Open").
 */
import { ILayoutRestorer, JupyterFrontEnd } from '@jupyterlab/application';
import { MainAreaWidget, WidgetTracker } from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';

import { CommandIDs } from '../commandIds';
import { PanelController } from '../controller';
import { insertCell } from '../notebook';
import { ExplorerModel } from './model';
import { sourceOfNode } from './nodeSource';
import { ExplorerSource, sourceId } from './source';
import { explorerWidget, ExplorerPanel } from './widget';

export function registerExplorer(
  app: JupyterFrontEnd,
  controller: PanelController,
  restorer: ILayoutRestorer | null,
  notebooks: INotebookTracker | null
): void {
  const tracker = new WidgetTracker<MainAreaWidget<ExplorerPanel>>({ namespace: 'aistor-explorer' });
  const insert = (code: string) => {
    if (notebooks) {
      void insertCell(app, notebooks, code);
    }
  };
  const sourceOf = (args: { source?: unknown }): ExplorerSource | null =>
    (args.source as ExplorerSource | undefined) ?? sourceOfNode(controller.selected);

  app.commands.addCommand(CommandIDs.openExplorer, {
    label: 'Open',
    caption: 'Open in the table explorer (data, schema, snapshots)',
    isEnabled: args => !!sourceOf(args),
    isVisible: args => !!sourceOf(args),
    execute: async args => {
      const source = sourceOf(args);
      if (!source) {
        return;
      }
      const open = tracker.find(widget => widget.id === sourceId(source));
      if (open) {
        app.shell.activateById(open.id);
        return;
      }
      const model = new ExplorerModel(source);
      const widget = explorerWidget(model, insert);
      app.shell.add(widget, 'main');
      await tracker.add(widget);
      app.shell.activateById(widget.id);
      await model.refresh();
    }
  });

  // A double-click on such a row opens it too (TreeView.tsx).
  for (const kind of ['table', 'view', 'shared-table']) {
    app.contextMenu.addItem({ command: CommandIDs.openExplorer, selector: `.jp-AIStorLab-row[data-kind="${kind}"]`, rank: -1 });
  }
  void restorer?.restore(tracker, {
    command: CommandIDs.openExplorer,
    args: widget => ({ source: widget.content.model.source as never }),
    name: widget => widget.id
  });
}
