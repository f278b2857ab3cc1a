/**
 * The panel's state and the API calls that change it: the tree (lazy children, refresh), the
 * service status, the selected node and its details, the one message shown at the top, and
 * whether a long operation is under way. Views render it and re-render on `changed`.
 */
import { ISignal, Signal } from '@lumino/signaling';

import * as api from './api';
import * as storeApi from './buckets/api';
import { bucketNodes, listingId, listingNodes } from './buckets/listing';
import { IObjectInfo } from './buckets/types';
import { Uploads } from './buckets/uploads';
import { plainMessage } from './errors';
import { ITreePath } from './search/reveal';
import { Searcher } from './search/searcher';
import {
  BUCKETS_ID,
  ITreeNode,
  namespaceContentNodes,
  shareContentNodes,
  shareNodes,
  TreeModel,
  warehouseNodes,
  WAREHOUSES_ID
} from './treeModel';
import { ICommandResult, IShareInfo, IStatus, ITableDetails, IToken } from './types';

export type Details =
  | { kind: 'table'; table: ITableDetails }
  | { kind: 'share'; share: IShareInfo; tokens: IToken[] }
  | { kind: 'object'; object: IObjectInfo };

export class PanelController {
  readonly tree = new TreeModel();
  status: IStatus | null = null;
  selected: ITreeNode | null = null;
  details: Details | null = null;
  detailsLoading = false;
  detailsError: string | null = null;
  /** The last failure, in plain words, until dismissed. */
  error: string | null = null;
  /** What is running now ("Creating table orders…"), for the progress bar. */
  busy: string | null = null;
  readonly search = new Searcher(() => this.emit());
  readonly uploads = new Uploads(() => this.emit());
  /** The node a search result revealed: the tree scrolls to it and focuses it. */
  revealed: string | null = null;

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  private emit(): void {
    this._changed.emit();
  }

  /** Shows a problem found before anything was sent (a form's bad value). */
  report(message: string): void {
    this.error = message;
    this.emit();
  }

  dismissError(): void {
    this.error = null;
    this.emit();
  }

  /** Status, the two top groups, and everything the user had opened, again. */
  async refresh(): Promise<void> {
    this.busy = 'Refreshing…';
    this.emit();
    try {
      this.status = await api.getStatus();
    } catch (error) {
      this.status = null;
      this.error = plainMessage(error);
    }
    for (const id of this.tree.expandedIds()) {
      await this.loadChildren(id);
    }
    if (this.selected && this.tree.find(this.selected.id)) {
      await this.loadDetails(this.selected);
    } else {
      this.selected = null;
      this.details = null;
    }
    this.busy = null;
    this.emit();
  }

  async toggle(node: ITreeNode): Promise<void> {
    if (this.tree.expanded.delete(node.id)) {
      this.emit();
      return;
    }
    this.tree.expanded.add(node.id);
    if (node.children === null) {
      await this.loadChildren(node.id);
    } else {
      this.emit();
    }
  }

  private async children(node: ITreeNode): Promise<ITreeNode[]> {
    switch (node.kind) {
      case 'group':
        if (node.id === BUCKETS_ID) {
          return bucketNodes(await storeApi.listBuckets());
        }
        return node.id === WAREHOUSES_ID
          ? warehouseNodes(await api.listWarehouses())
          : shareNodes(await api.listShares());
      case 'bucket':
      case 'prefix':
        return listingNodes(null, await storeApi.listObjects(node.bucket!, node.key ?? ''));
      case 'warehouse':
      case 'namespace':
        return namespaceContentNodes(
          node.warehouse!,
          node.namespace,
          await api.namespaceChildren(node.warehouse!, node.namespace)
        );
      case 'share':
        return shareContentNodes(await api.getShare(node.share!));
      default:
        return node.children ?? [];
    }
  }

  async loadChildren(id: string): Promise<void> {
    const node = this.tree.find(id);
    if (!node) {
      return;
    }
    this.tree.loading.add(id);
    this.emit();
    try {
      this.tree.setChildren(id, await this.children(node));
    } catch (error) {
      this.tree.setError(id, plainMessage(error));
    } finally {
      this.tree.loading.delete(id);
      this.emit();
    }
  }

  /** The next page of a listing, merged into what its "Load more…" row ends. */
  async loadMore(more: ITreeNode): Promise<void> {
    const id = listingId(more.bucket!, more.key!);
    this.tree.loading.add(id);
    this.emit();
    try {
      const page = await storeApi.listObjects(more.bucket!, more.key!, more.nextToken);
      this.tree.setChildren(id, listingNodes(this.tree.find(id)?.children ?? null, page));
    } catch (error) {
      this.tree.setError(id, plainMessage(error));
    } finally {
      this.tree.loading.delete(id);
      this.emit();
    }
  }

  /** Expands the path to a node (loading what was never loaded, or reloading a listing that does
   * not hold the next step yet) and selects it. */
  async reveal(path: ITreePath): Promise<void> {
    const steps = [...path.ancestors, path.target];
    for (const [i, id] of path.ancestors.entries()) {
      const node = this.tree.find(id);
      if (!node) {
        break;
      }
      this.tree.expanded.add(id);
      if (node.children === null || !node.children.some(child => child.id === steps[i + 1])) {
        await this.loadChildren(id);
      }
    }
    const target = this.tree.find(path.target);
    if (!target) {
      this.report('That item is no longer there (or not in the first page of its folder): refresh and look again.');
      return;
    }
    this.revealed = target.id;
    await this.select(target);
  }

  async select(node: ITreeNode): Promise<void> {
    if (node.kind === 'more') {
      return this.loadMore(node);
    }
    if (this.selected?.id === node.id) {
      this.emit();
      return;
    }
    this.selected = node;
    this.details = null;
    await this.loadDetails(node);
  }

  private async loadDetails(node: ITreeNode): Promise<void> {
    const wanted = ['table', 'share', 'shared-table', 'object'].includes(node.kind);
    this.detailsError = null;
    this.detailsLoading = wanted;
    this.emit();
    if (!wanted) {
      return;
    }
    try {
      if (node.kind === 'table') {
        const table = await api.tableDetails(node.warehouse!, node.namespace!, node.table!);
        this.setDetails(node, { kind: 'table', table });
      } else if (node.kind === 'object') {
        const object = await storeApi.objectInfo(node.bucket!, node.key!);
        this.setDetails(node, { kind: 'object', object });
      } else {
        const [share, tokens] = await Promise.all([api.getShare(node.share!), api.listTokens(node.share!)]);
        this.setDetails(node, { kind: 'share', share, tokens });
      }
    } catch (error) {
      if (this.selected?.id === node.id) {
        this.detailsError = plainMessage(error);
      }
    } finally {
      if (this.selected?.id === node.id) {
        this.detailsLoading = false;
      }
      this.emit();
    }
  }

  private setDetails(node: ITreeNode, details: Details): void {
    // The user may have clicked elsewhere while this loaded.
    if (this.selected?.id === node.id) {
      this.details = details;
    }
  }

  /**
   * Runs a command of the command table with the progress bar shown; on success reloads the
   * children of `reload` (tree node ids). Failures land in the panel's message and are rethrown.
   */
  async run<T>(what: string, argv: string[], reload: string[] = []): Promise<ICommandResult<T>> {
    return this.act(what, () => api.runCommand<T>(argv), reload);
  }

  /** `run` for any call of the API (a deletion in the store, say). */
  async act<T>(what: string, call: () => Promise<T>, reload: string[] = []): Promise<T> {
    this.busy = what;
    this.error = null;
    this.emit();
    try {
      const result = await call();
      for (const id of reload) {
        this.tree.expanded.add(id);
        await this.loadChildren(id);
      }
      if (this.selected) {
        if (this.tree.find(this.selected.id)) {
          await this.loadDetails(this.selected);
        } else {
          this.selected = null;
          this.details = null;
        }
      }
      return result;
    } catch (error) {
      this.error = plainMessage(error);
      throw error;
    } finally {
      this.busy = null;
      this.emit();
    }
  }

  private _changed = new Signal<this, void>(this);
}
