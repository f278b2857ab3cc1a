/** The server extension's REST API under `<base_url>/aistor-lab/api/`, behind Jupyter's login. */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { ApiError, errorFromResponse } from './errors';
import {
  ICommandResult,
  INamespaceChildren,
  IShareInfo,
  IShareSummary,
  IStatus,
  ITableDetails,
  IToken
} from './types';

export const segment = encodeURIComponent;

/** The address of one of the API's paths (`buckets/b/download?key=k`). */
export function apiUrl(path: string, settings = ServerConnection.makeSettings()): string {
  return URLExt.join(settings.baseUrl, 'aistor-lab/api', path);
}

export async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  const settings = ServerConnection.makeSettings();
  const url = apiUrl(path, settings);
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, init, settings);
  } catch (error) {
    throw new ApiError(0, String(error));
  }
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = { error: text };
  }
  if (!response.ok) {
    throw errorFromResponse(response.status, body);
  }
  return body as T;
}

export function getStatus(): Promise<IStatus> {
  return request('status');
}

export function listWarehouses(): Promise<string[]> {
  return request('warehouses');
}

/** What is directly inside a warehouse, or inside one of its namespaces (dotted). */
export function namespaceChildren(warehouse: string, namespace?: string): Promise<INamespaceChildren> {
  const query = namespace ? `?parent=${segment(namespace)}` : '';
  return request(`warehouses/${segment(warehouse)}/children${query}`);
}

export function tableDetails(
  warehouse: string,
  namespace: string,
  table: string,
  previewRows = 20
): Promise<ITableDetails> {
  return request(
    `warehouses/${segment(warehouse)}/namespaces/${segment(namespace)}/tables/${segment(table)}?preview=${previewRows}`
  );
}

export function listShares(): Promise<IShareSummary[]> {
  return request('shares');
}

export function getShare(share: string): Promise<IShareInfo> {
  return request(`shares/${segment(share)}`);
}

export function listTokens(share: string): Promise<IToken[]> {
  return request(`shares/${segment(share)}/tokens`);
}

/** Runs one command of the command table (the `aistor` CLI's, without an alias). */
export function runCommand<T = unknown>(argv: string[]): Promise<ICommandResult<T>> {
  return request('commands', { method: 'POST', body: JSON.stringify({ argv }) });
}
