/** Server-side sorting of the grid: one column at a time, cycled by clicking its header. */

export type Direction = 'asc' | 'desc';

export interface ISort {
  column: string;
  direction: Direction;
}

/** The sort after a click on `column`'s header: asc → desc → none; another column starts at asc. */
export function nextSort(current: ISort | null, column: string): ISort | null {
  if (!current || current.column !== column) {
    return { column, direction: 'asc' };
  }
  return current.direction === 'asc' ? { column, direction: 'desc' } : null;
}

/** The `sort` query parameter (`col:asc`), or null for none. */
export function sortParam(sort: ISort | null): string | null {
  return sort ? `${sort.column}:${sort.direction}` : null;
}

/** A header's text with the sort indicator when it is the sorted column. */
export function headerText(column: string, sort: ISort | null): string {
  if (sort?.column !== column) {
    return column;
  }
  return `${column} ${sort.direction === 'asc' ? '▲' : '▼'}`;
}
