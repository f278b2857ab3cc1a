/** The panel API's store endpoints: buckets, listings, an object's details, deletions. */
import { request, segment } from '../api';
import { IBucket, IObjectInfo, IObjectListing } from './types';

export const PAGE_SIZE = 200;

export function listBuckets(): Promise<IBucket[]> {
  return request('buckets');
}

/** One page of what is directly under `prefix` ('' for the bucket's top). */
export function listObjects(bucket: string, prefix: string, token?: string): Promise<IObjectListing> {
  const query = new URLSearchParams({ prefix, limit: String(PAGE_SIZE) });
  if (token) {
    // Not ?token=: Jupyter would read that as its login token.
    query.set('continuation', token);
  }
  return request(`buckets/${segment(bucket)}/objects?${query}`);
}

export function objectInfo(bucket: string, key: string): Promise<IObjectInfo> {
  return request(`buckets/${segment(bucket)}/object?key=${segment(key)}`);
}

/** Deletes one object, or everything under a prefix (ending in `/`). */
export function deleteObjects(bucket: string, keyOrPrefix: string): Promise<{ deleted: number }> {
  const which = keyOrPrefix.endsWith('/') ? 'prefix' : 'key';
  return request(`buckets/${segment(bucket)}/objects?${which}=${segment(keyOrPrefix)}`, { method: 'DELETE' });
}

/** The download endpoint's path (the browser fetches it itself, with Jupyter's cookie). */
export function downloadPath(bucket: string, key: string): string {
  return `buckets/${segment(bucket)}/download?key=${segment(key)}`;
}

export function uploadPath(bucket: string, key: string): string {
  return `buckets/${segment(bucket)}/upload?key=${segment(key)}`;
}
