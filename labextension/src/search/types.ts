/** The answer of the panel API's `search?q=`: a bounded server-side walk of everything. */

export type SearchKind =
  | 'warehouse'
  | 'namespace'
  | 'table'
  | 'view'
  | 'share'
  | 'shared-table'
  | 'bucket';

export interface ISearchResult {
  kind: SearchKind;
  /** The whole name, dotted: `analytics.sales.orders`. */
  label: string;
  warehouse?: string;
  /** Dotted (`sales.eu`). */
  namespace?: string;
  /** A table's name (also a shared table's). */
  table?: string;
  view?: string;
  share?: string;
  schema?: string;
  bucket?: string;
  /** A prefix in the bucket (a Delta or Iceberg table's folder, say). */
  path?: string;
}

export interface ISearchAnswer {
  query: string;
  results: ISearchResult[];
  /** False when the walk stopped early: more may match. */
  complete: boolean;
}
