/** The query string of a `rows` request: which page, as of what, sorted and filtered how. */
import { ISort, sortParam } from './sort';

/** What the grid shows, apart from the page: the same view pages through the same rows. */
export interface IRowsView {
  /** An Iceberg snapshot id (as text) or a Delta version. */
  snapshot?: string | null;
  ref?: string | null;
  sort: ISort | null;
  filter: string;
}

export function rowsQuery(view: IRowsView, offset: number, limit: number, versionParam = 'snapshot'): string {
  const params = new URLSearchParams({ offset: String(offset), limit: String(limit) });
  if (view.snapshot) {
    params.set(versionParam, view.snapshot);
  } else if (view.ref) {
    params.set('ref', view.ref);
  }
  const sort = sortParam(view.sort);
  if (sort) {
    params.set('sort', sort);
  }
  if (view.filter.trim()) {
    params.set('filter', view.filter.trim());
  }
  return params.toString();
}
