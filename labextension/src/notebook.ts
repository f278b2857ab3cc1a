/** Puts code into the active notebook (a new one when none is open), as a new cell below the active one. */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { INotebookTracker, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';

export async function insertCell(app: JupyterFrontEnd, tracker: INotebookTracker, code: string): Promise<void> {
  let panel = tracker.currentWidget;
  if (!panel) {
    panel = (await app.commands.execute('notebook:create-new')) as NotebookPanel;
    await panel.context.ready;
  }
  const notebook = panel.content;
  // An empty active cell is used as it is; otherwise the code goes below it.
  if (!notebook.activeCell || notebook.activeCell.model.sharedModel.getSource().trim()) {
    NotebookActions.insertBelow(notebook);
  }
  NotebookActions.changeCellType(notebook, 'code');
  notebook.activeCell!.model.sharedModel.setSource(code);
  app.shell.activateById(panel.id);
}
