/** The shapes of the panel API's store endpoints (`buckets/...`). */

export type TableFormat = 'delta' | 'iceberg';

export interface IBucket {
  name: string;
  created: string;
  /** The bucket of a warehouse of the catalog. */
  warehouse: boolean;
}

export interface IObjectSummary {
  key: string;
  size: number;
  lastModified: string;
  etag: string;
}

/** One page of what is directly under a prefix. */
export interface IObjectListing {
  bucket: string;
  prefix: string;
  folders: { prefix: string; table: TableFormat | null }[];
  objects: IObjectSummary[];
  nextToken: string | null;
  /** The prefix itself is a table's root. */
  table: TableFormat | null;
}

export interface IObjectInfo {
  bucket: string;
  key: string;
  size: number;
  lastModified: string;
  etag: string;
  contentType: string | null;
  metadata: Record<string, string>;
  versionId: string | null;
  storageClass: string | null;
}

export interface IUploaded {
  bucket: string;
  key: string;
  size: number;
  etag: string;
}
