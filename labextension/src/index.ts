/** The aistor-lab side panel: registered in JupyterLab's left area with its commands and menus. */
import { ILayoutRestorer, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';

import { registerBucketCommands, registerBucketContextMenu } from './buckets/commands';
import { CommandIDs } from './commandIds';
import { registerCommands, registerContextMenu } from './commands';
import { PanelController } from './controller';
import { registerExplorer } from './explorer/commands';
import { AIStorPanel, PANEL_ID } from './panel';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'aistor-lab:panel',
  description: 'Browse and act on the warehouses, namespaces, tables and shares of AIStor-lab.',
  autoStart: true,
  optional: [ILayoutRestorer, ICommandPalette, INotebookTracker],
  activate: (
    app: JupyterFrontEnd,
    restorer: ILayoutRestorer | null,
    palette: ICommandPalette | null,
    tracker: INotebookTracker | null
  ) => {
    const controller = new PanelController();
    // Commands first: the panel's toolbar reads their captions.
    registerCommands(app, controller, tracker, PANEL_ID);
    registerBucketCommands(app, controller);
    const panel = new AIStorPanel(controller, app.commands);
    registerContextMenu(app);
    registerBucketContextMenu(app);
    registerExplorer(app, controller, restorer, tracker);
    app.shell.add(panel, 'left', { rank: 600 });
    restorer?.add(panel, panel.id);
    for (const command of [CommandIDs.open, CommandIDs.refresh, CommandIDs.createWarehouse, CommandIDs.createShare]) {
      palette?.addItem({ command, category: 'AIStor' });
    }
    void controller.refresh();
  }
};

export default plugin;
