/**
 * Files dragged from JupyterLab's file browser onto a bucket, folder or object row. That drag is a
 * Lumino drag (`lm-*` events carrying the files' paths), not an HTML drag with files, so the tree
 * listens for it on its own: the files are read through Jupyter's `/files` and uploaded as if they
 * had been dropped from the desktop.
 */
import { Notification } from '@jupyterlab/apputils';
import { PathExt, URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import type { Drag } from '@lumino/dragdrop';

import { PanelController } from '../controller';
import { ITreeNode } from '../treeModel';
import { takesUploads, uploadInto } from './drop';

/** What the file browser's drags carry: the dragged items' paths. */
export const CONTENTS_MIME = 'application/x-jupyter-icontents';

const DROP_TARGET = 'jp-mod-dropTarget';
const EVENTS = ['lm-dragenter', 'lm-dragover', 'lm-dragleave', 'lm-drop'];

/** A file of Jupyter's root (the file browser's default drive, whose paths have no `drive:`). */
async function readFile(path: string): Promise<File> {
  const settings = ServerConnection.makeSettings();
  const url = URLExt.join(settings.baseUrl, 'files', URLExt.encodeParts(path));
  const response = await ServerConnection.makeRequest(url, {}, settings);
  if (!response.ok) {
    throw new Error(`Jupyter cannot give ${path} (${response.status}): only files can be uploaded, not folders.`);
  }
  return new File([await response.blob()], PathExt.basename(path));
}

/** Listens on `tree` (the panel's tree element) until the answered function is called. */
export function listenForFileBrowserDrops(tree: HTMLElement, controller: PanelController): () => void {
  let marked: Element | null = null;
  const mark = (row: Element | null) => {
    marked?.classList.remove(DROP_TARGET);
    row?.classList.add(DROP_TARGET);
    marked = row;
  };
  const target = (event: Drag.Event): { row: Element; node: ITreeNode } | null => {
    const row = (event.target as Element | null)?.closest?.('.jp-AIStorLab-row') ?? null;
    const node = row && controller.tree.find(row.getAttribute('data-id') ?? '');
    return row && node && takesUploads(node) && event.mimeData.hasData(CONTENTS_MIME) ? { row, node } : null;
  };
  const handle = (event: Event) => {
    const drag = event as Drag.Event;
    const found = target(drag);
    if (event.type === 'lm-dragleave' || !found) {
      mark(null);
      return;
    }
    event.preventDefault();
    event.stopPropagation();
    // The file browser offers only "move"; taking it moves nothing: its files stay where they are.
    drag.dropAction = drag.proposedAction;
    if (event.type !== 'lm-drop') {
      mark(found.row);
      return;
    }
    mark(null);
    const paths = (drag.mimeData.getData(CONTENTS_MIME) as string[]).filter(path => typeof path === 'string');
    void Promise.all(paths.map(readFile))
      .then(files => uploadInto(controller, found.node, files))
      .catch(error => Notification.error(String(error instanceof Error ? error.message : error), { autoClose: 6000 }));
  };
  EVENTS.forEach(type => tree.addEventListener(type, handle));
  return () => EVENTS.forEach(type => tree.removeEventListener(type, handle));
}
