/**
 * One explorer tab's state: the source's details, what the grid shows (current, a snapshot, a ref,
 * a Delta version), its sort and filter, and the column profile. Views render it on `changed`.
 */
import { ISignal, Signal } from '@lumino/signaling';

import { ApiError, plainMessage } from '../errors';
import * as api from './api';
import { RowsModel } from './gridModel';
import { IRowsView } from './query';
import { ISort, nextSort } from './sort';
import { ExplorerSource } from './source';
import {
  IColumn,
  IDeltaDetails,
  IIcebergDetails,
  IProfile,
  IRowsPage,
  ISharedTableView,
  IViewDetails
} from './types';

export type Loaded =
  | { kind: 'iceberg'; details: IIcebergDetails }
  | { kind: 'view'; details: IViewDetails }
  | { kind: 'delta'; details: IDeltaDetails }
  | { kind: 'shared'; details: ISharedTableView };

/** The shared table's preview as pages (it comes whole, through the sharing server). */
function previewPages(view: ISharedTableView): (offset: number, limit: number) => Promise<IRowsPage> {
  const columns: IColumn[] = view.preview.columns.map(column =>
    typeof column === 'string' ? { name: column, type: '' } : column
  );
  const rows = view.preview.rows;
  return async (offset, limit) => ({
    columns,
    rows: rows.slice(offset, offset + limit),
    offset,
    limit,
    total: rows.length,
    snapshotId: null
  });
}

export class ExplorerModel {
  constructor(readonly source: ExplorerSource) {
    const pages = source.kind === 'iceberg' || source.kind === 'delta';
    this.rows = pages
      ? new RowsModel((offset, limit) => api.rows(source, this.rowsView, offset, limit))
      : new RowsModel((offset, limit) => this.preview!(offset, limit));
    this.rows.stateChanged.connect(() => this._changed.emit());
  }

  readonly rows: RowsModel;
  loaded: Loaded | null = null;
  loading = false;
  error: string | null = null;
  /** The snapshot id (Iceberg) or version (Delta) shown, as text; null: the current one. */
  version: string | null = null;
  /** An Iceberg branch or tag shown instead of a snapshot. */
  ref: string | null = null;
  filter = '';
  profile: IProfile | null = null;
  profileLoading = false;
  profileError: string | null = null;

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /** Whether the grid sorts and filters on the server (a shared preview is only shown). */
  get queryable(): boolean {
    return this.source.kind === 'iceberg' || this.source.kind === 'delta';
  }

  get hasRows(): boolean {
    return this.source.kind !== 'view';
  }

  /** Loads the details again, then the rows as they are chosen now. */
  async refresh(): Promise<void> {
    this.loading = true;
    this.error = null;
    this._changed.emit();
    try {
      this.loaded = await this.fetchDetails();
      if (this.loaded.kind === 'shared') {
        this.preview = previewPages(this.loaded.details);
      }
    } catch (error) {
      // A 404: the table went away (dropped, renamed) since the panel listed it.
      const gone = error instanceof ApiError && error.status === 404;
      this.error = `${plainMessage(error)} ${gone ? 'Refresh the panel to see what is there now.' : 'Press Refresh to try again.'}`;
    }
    this.loading = false;
    this._changed.emit();
    if (this.loaded && this.hasRows) {
      await this.rows.reload();
    }
  }

  /** Shows the table as of a snapshot or version (null: current), or at a ref. */
  async show(version: string | null, ref: string | null = null): Promise<void> {
    this.version = version;
    this.ref = version ? null : ref;
    this.profile = null;
    this._changed.emit();
    await this.rows.reload();
  }

  async setFilter(filter: string): Promise<void> {
    this.filter = filter;
    this._changed.emit();
    await this.rows.reload();
  }

  /** Cycles the sort of a column: asc → desc → none. */
  async sortBy(column: string): Promise<void> {
    await this.setSort(nextSort(this.rows.sort, column));
  }

  async setSort(sort: ISort | null): Promise<void> {
    if (!this.queryable) {
      return;
    }
    this.rows.sort = sort;
    this._changed.emit();
    await this.rows.reload();
  }

  async loadProfile(): Promise<void> {
    if (this.source.kind !== 'iceberg') {
      return;
    }
    this.profileLoading = true;
    this.profileError = null;
    this._changed.emit();
    try {
      const { warehouse, namespace, table } = this.source;
      this.profile = await api.profile(warehouse, namespace, table, this.version ?? this.refSnapshot());
    } catch (error) {
      this.profileError = plainMessage(error);
    }
    this.profileLoading = false;
    this._changed.emit();
  }

  /** The snapshot a ref points at, when one is shown. */
  private refSnapshot(): string | null {
    return this.loaded?.kind === 'iceberg' && this.ref ? (this.loaded.details.refs[this.ref]?.snapshotId ?? null) : null;
  }

  private get rowsView(): IRowsView {
    return { snapshot: this.version, ref: this.ref, sort: this.rows.sort, filter: this.filter };
  }

  private async fetchDetails(): Promise<Loaded> {
    const source = this.source;
    switch (source.kind) {
      case 'iceberg':
        return { kind: 'iceberg', details: await api.icebergDetails(source.warehouse, source.namespace, source.table) };
      case 'view':
        return { kind: 'view', details: await api.viewDetails(source.warehouse, source.namespace, source.view) };
      case 'delta':
        return { kind: 'delta', details: await api.deltaDetails(source.bucket, source.path) };
      case 'shared':
        return { kind: 'shared', details: await api.sharedTable(source.share, source.schema, source.table) };
    }
  }

  private preview: ((offset: number, limit: number) => Promise<IRowsPage>) | null = null;
  private _changed = new Signal<this, void>(this);
}
