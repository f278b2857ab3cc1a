/** Files the user chooses or drops on a bucket, folder or object: uploaded there (next to an
 * object), then that folder's listing is loaded again. */
import { PanelController } from '../controller';
import { ITreeNode } from '../treeModel';
import { uploadPrefix, uploadTargetId } from './listing';

export function takesUploads(node: ITreeNode | null): boolean {
  return !!node && ['bucket', 'prefix', 'object'].includes(node.kind);
}

/** Whether a drag carries files from the desktop (not text or a link). */
export function carriesFiles(event: { dataTransfer: DataTransfer | null }): boolean {
  return !!event.dataTransfer && [...event.dataTransfer.types].includes('Files');
}

export async function uploadInto(controller: PanelController, target: ITreeNode, files: File[]): Promise<number> {
  const prefix = uploadPrefix(target);
  const uploaded = await Promise.all(
    files.map(file => controller.uploads.upload(target.bucket!, prefix + file.name, file))
  );
  const id = uploadTargetId(target);
  controller.tree.expanded.add(id);
  await controller.loadChildren(id);
  return uploaded.filter(Boolean).length;
}
