/**
 * Uploads and downloads of objects through the browser. An upload is an XMLHttpRequest (fetch has
 * no upload progress) carrying what ServerConnection adds to its requests: the token, if any, and
 * the `_xsrf` cookie as `X-XSRFToken`. A download is a link the browser follows itself, so the
 * bytes stream to disk; like JupyterLab's own file downloads, it carries `_xsrf`.
 */
import { ServerConnection } from '@jupyterlab/services';

import { apiUrl } from '../api';
import { errorFromResponse, plainMessage } from '../errors';
import { downloadPath, uploadPath } from './api';
import { IUploaded } from './types';

/** The `_xsrf` cookie, the last one when there are several (what Tornado reads). */
function xsrfToken(): string | undefined {
  let value: string | undefined;
  for (const part of document.cookie.split(';')) {
    const trimmed = part.trim();
    if (trimmed.startsWith('_xsrf=')) {
      value = trimmed.slice('_xsrf='.length);
    }
  }
  return value;
}

export function uploadObject(
  bucket: string,
  key: string,
  file: Blob,
  onProgress: (loaded: number, total: number) => void
): Promise<IUploaded> {
  const settings = ServerConnection.makeSettings();
  const xhr = new XMLHttpRequest();
  xhr.open('PUT', apiUrl(uploadPath(bucket, key), settings));
  if (settings.token) {
    xhr.setRequestHeader('Authorization', `token ${settings.token}`);
  }
  const xsrf = xsrfToken();
  if (xsrf) {
    xhr.setRequestHeader('X-XSRFToken', xsrf);
  }
  xhr.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
  xhr.upload.onprogress = event => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
  return new Promise((resolve, reject) => {
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = { error: xhr.responseText };
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(body as IUploaded);
      } else {
        reject(new Error(plainMessage(errorFromResponse(xhr.status, body))));
      }
    };
    xhr.onerror = () => reject(new Error('The upload was cut off: is the Jupyter server still running?'));
    xhr.onabort = () => reject(new Error('Upload cancelled.'));
    xhr.send(file);
  });
}

export function downloadObject(bucket: string, key: string): void {
  const url = new URL(apiUrl(downloadPath(bucket, key)), window.location.href);
  const xsrf = xsrfToken();
  if (xsrf) {
    url.searchParams.append('_xsrf', xsrf);
  }
  const link = document.createElement('a');
  link.href = url.toString();
  link.download = key.slice(key.lastIndexOf('/') + 1);
  document.body.append(link);
  link.click();
  link.remove();
}
