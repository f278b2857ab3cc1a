/**
 * The grid's lazy data model: rows come a page at a time from a `rows`-shaped endpoint as the grid
 * paints them; a row not here yet shows a placeholder until its page arrives.
 */
import { DataModel } from '@lumino/datagrid';
import { ISignal, Signal } from '@lumino/signaling';

import { plainMessage } from '../errors';
import { PageCache } from './paging';
import { headerText, ISort } from './sort';
import { IColumn, IRowsPage } from './types';

/** What a cell shows while its page loads. */
export const LOADING = Symbol('loading');

export type FetchPage = (offset: number, limit: number) => Promise<IRowsPage>;

/** Pages fetched at once at most: where the viewport is now, not where it went by. */
const PARALLEL_PAGES = 3;

export class RowsModel extends DataModel {
  constructor(private fetchPage: FetchPage, pageSize = 100) {
    super();
    this.cache = new PageCache(pageSize);
  }

  columns: IColumn[] = [];
  /** Shown in the header; the fetcher reads it too. */
  sort: ISort | null = null;
  /** The last failure in plain words (a bad filter, an unknown snapshot), or null. */
  error: string | null = null;
  loading = false;
  snapshotId: string | null = null;

  /** Emitted when the columns, total, error or loading state change (not on every page). */
  get stateChanged(): ISignal<this, void> {
    return this._stateChanged;
  }

  /** The row count when known (counted by the server, or the end reached), else null. */
  get total(): number | null {
    return this.cache.known;
  }

  rowCount(region: DataModel.RowRegion): number {
    return region === 'body' ? this.cache.rowCount() : 1;
  }

  columnCount(region: DataModel.ColumnRegion): number {
    return region === 'body' ? this.columns.length : 1;
  }

  data(region: DataModel.CellRegion, row: number, column: number): unknown {
    switch (region) {
      case 'column-header':
        return headerText(this.columns[column]?.name ?? '', this.sort);
      case 'row-header':
        return row + 1;
      case 'corner-header':
        return '#';
    }
    const cells = this.cache.row(row);
    if (cells) {
      return cells[column];
    }
    if (this.cache.want(row)) {
      this.schedule();
    }
    return LOADING;
  }

  /** Starts again from the first page (a new sort, filter or snapshot): the columns may change too. */
  async reload(): Promise<void> {
    this.cache.reset();
    this.error = null;
    this.loading = true;
    this._stateChanged.emit();
    const generation = this.cache.generation;
    try {
      const page = await this.fetchPage(0, this.cache.pageSize);
      if (this.cache.store(generation, 0, page.rows, page.total)) {
        this.columns = page.columns;
        this.snapshotId = page.snapshotId;
      }
    } catch (error) {
      if (generation === this.cache.generation) {
        // The columns stay: the header still says what a corrected filter would show.
        this.error = plainMessage(error);
      }
    }
    if (generation === this.cache.generation) {
      this.loading = false;
      this._rowCount = this.cache.rowCount();
      this.emitChanged({ type: 'model-reset' });
      this._stateChanged.emit();
    }
  }

  /** Fetches the wanted pages after the grid's paint (many cells ask in one paint). */
  private schedule(): void {
    if (this._timer === null) {
      this._timer = window.setTimeout(() => {
        this._timer = null;
        this.cache.take(PARALLEL_PAGES).forEach(page => void this.fetch(page));
      }, 30);
    }
  }

  private async fetch(page: number): Promise<void> {
    const generation = this.cache.generation;
    const size = this.cache.pageSize;
    try {
      const answer = await this.fetchPage(page * size, size);
      if (!this.cache.store(generation, page, answer.rows, answer.total)) {
        return;
      }
      this.resize();
      const last = Math.min(answer.rows.length, size) - 1;
      if (last >= 0) {
        this.emitChanged({ type: 'cells-changed', region: 'body', row: page * size, column: 0, rowSpan: last + 1, columnSpan: this.columns.length });
      }
    } catch (error) {
      this.cache.failed(generation, page);
      this.error = plainMessage(error);
      this._stateChanged.emit();
    }
  }

  /** Tells the grid the row count moved (a page past the last one, or the end found). */
  private resize(): void {
    const count = this.cache.rowCount();
    if (count > this._rowCount) {
      this.emitChanged({ type: 'rows-inserted', region: 'body', index: this._rowCount, span: count - this._rowCount });
    } else if (count < this._rowCount) {
      this.emitChanged({ type: 'rows-removed', region: 'body', index: count, span: this._rowCount - count });
    }
    if (count !== this._rowCount) {
      this._rowCount = count;
      this._stateChanged.emit();
    }
  }

  private cache: PageCache;
  private _rowCount = 0;
  private _timer: number | null = null;
  private _stateChanged = new Signal<this, void>(this);
}
