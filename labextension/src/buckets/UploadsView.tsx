/** The panel's uploads: a progress bar each while it runs, then done or why it failed. */
import { Button } from '@jupyterlab/ui-components';
import React from 'react';

import { PanelController } from '../controller';
import { humanSize } from './sizes';

export function UploadsView({ controller }: { controller: PanelController }): JSX.Element | null {
  const { items } = controller.uploads;
  if (!items.length) {
    return null;
  }
  return (
    <div className="jp-AIStorLab-uploads" role="region" aria-label="Uploads">
      <ul>
        {items.map(item => (
          <li key={item.id} className={`jp-AIStorLab-upload jp-mod-${item.state}`} data-key={item.key}>
            <div className="jp-AIStorLab-listRow">
              <span className="jp-AIStorLab-uploadName" title={`s3://${item.bucket}/${item.key}`}>
                {item.key.slice(item.key.lastIndexOf('/') + 1)}
              </span>
              <small>
                {item.state === 'running' && `${humanSize(item.loaded)} of ${humanSize(item.total)}`}
                {item.state === 'done' && `uploaded · ${humanSize(item.total)}`}
                {item.state === 'failed' && 'failed'}
              </small>
            </div>
            <progress
              max={item.total || 1}
              value={item.loaded}
              aria-label={`Upload of ${item.key}`}
            />
            {item.error && <small className="jp-AIStorLab-rowError">{item.error}</small>}
          </li>
        ))}
      </ul>
      {items.some(item => item.state !== 'running') && (
        <Button small minimal onClick={() => controller.uploads.clearFinished()}>
          Clear finished uploads
        </Button>
      )}
    </div>
  );
}
