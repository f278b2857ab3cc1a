/**
 * Which rows the grid has, and which pages of them to fetch: the grid asks for cells as it paints,
 * each missing row puts its page on a wish list, and the newest wishes are fetched (a fast scroll
 * over a million rows fetches where it stopped, not everything it passed). Without a total, the grid
 * shows one page of placeholders past the last full page, so scrolling there asks for more.
 */
import { Cell } from './types';

export class PageCache {
  constructor(readonly pageSize = 100) {}

  /** Bumped by every reset: an answer to an older request is dropped. */
  get generation(): number {
    return this._generation;
  }

  /** How many rows there are, when known: the server's total, or where a short page ended. */
  get known(): number | null {
    return this._total ?? this._end;
  }

  /** The rows to show: the total when known, else what is loaded plus a page to scroll into. */
  rowCount(): number {
    if (this.known !== null) {
      return this.known;
    }
    const loaded = [...this._pages.keys()];
    return loaded.length ? (Math.max(...loaded) + 2) * this.pageSize : 0;
  }

  pageOf(row: number): number {
    return Math.floor(row / this.pageSize);
  }

  /** One row when its page is here. */
  row(index: number): Cell[] | undefined {
    return this._pages.get(this.pageOf(index))?.[index % this.pageSize];
  }

  /** Notes that a row is wanted; answers whether its page still has to be fetched. */
  want(row: number): boolean {
    const page = this.pageOf(row);
    if (this._pages.has(page) || this._pending.has(page) || this.pastEnd(page)) {
      return false;
    }
    this._wanted.delete(page);
    this._wanted.add(page);
    return true;
  }

  /** The `max` most recently wanted pages, marked as being fetched; older wishes are forgotten. */
  take(max: number): number[] {
    const pages = [...this._wanted].slice(-max);
    this._wanted.clear();
    pages.forEach(page => this._pending.add(page));
    return pages;
  }

  /** Stores a fetched page; false when it answers a request from before the last reset. */
  store(generation: number, page: number, rows: Cell[][], total: number | null): boolean {
    if (generation !== this._generation) {
      return false;
    }
    this._pending.delete(page);
    this._pages.set(page, rows);
    if (total !== null) {
      this._total = total;
    }
    if (rows.length < this.pageSize) {
      this._end = page * this.pageSize + rows.length;
    }
    return true;
  }

  /** A page that failed can be asked for again. */
  failed(generation: number, page: number): void {
    if (generation === this._generation) {
      this._pending.delete(page);
    }
  }

  /** Forgets every row: the sort, filter or snapshot changed. */
  reset(): void {
    this._generation++;
    this._pages.clear();
    this._pending.clear();
    this._wanted.clear();
    this._total = null;
    this._end = null;
  }

  private pastEnd(page: number): boolean {
    const end = this.known;
    return end !== null && page * this.pageSize >= end;
  }

  private _generation = 0;
  private _pages = new Map<number, Cell[][]>();
  private _pending = new Set<number>();
  private _wanted = new Set<number>();
  private _total: number | null = null;
  private _end: number | null = null;
}
