/**
 * The panel's state and the API calls that change it: the tree (lazy children, refresh), the
 * service status, the selected node and its details, the one message shown at the top, and
 * whether a long operation is under way. Views render it and re-render on `changed`.
 */
import { ISignal, Signal } from '@lumino/signaling';

import * as api from './api';
import { plainMessage } from './errors';
import {
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
  | { kind: 'share'; share: IShareInfo; tokens: IToken[] };

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
  filter = '';

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  private emit(): void {
    this._changed.emit();
  }

  setFilter(text: string): void {
    this.filter = text;
    this.emit();
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
        return node.id === WAREHOUSES_ID
          ? warehouseNodes(await api.listWarehouses())
          : shareNodes(await api.listShares());
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

  async select(node: ITreeNode): Promise<void> {
    if (this.selected?.id === node.id) {
      return;
    }
    this.selected = node;
    this.details = null;
    await this.loadDetails(node);
  }

  private async loadDetails(node: ITreeNode): Promise<void> {
    const wanted = node.kind === 'table' || node.kind === 'share' || node.kind === 'shared-table';
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
    this.busy = what;
    this.error = null;
    this.emit();
    try {
      const result = await api.runCommand<T>(argv);
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
