/** The panel's content: service status, filter, message, progress, the tree and the details. */
import { closeIcon, FilterBox } from '@jupyterlab/ui-components';
import { CommandRegistry } from '@lumino/commands';
import React from 'react';

import { PanelController } from '../controller';
import { DetailsView } from './DetailsView';
import { TreeView } from './TreeView';

function Status({ controller }: { controller: PanelController }): JSX.Element {
  const status = controller.status;
  const healthy = !!status?.healthy;
  const text = !status
    ? 'Status unknown'
    : `${healthy ? 'Running' : 'Not answering'} · ${status.publicEndpoint ?? status.endpoint}`;
  const tooltip = status
    ? `${status.mode === 'managed' ? 'Started by this Jupyter' : 'Attached'}: ${status.endpoint}` +
      (status.dataDir ? `\nData: ${status.dataDir}` : '')
    : undefined;
  return (
    <div className="jp-AIStorLab-status" title={tooltip}>
      <span className={`jp-AIStorLab-dot${healthy ? ' jp-mod-healthy' : ''}`} />
      <span>{text}</span>
    </div>
  );
}

export function PanelView(props: { controller: PanelController; commands: CommandRegistry }): JSX.Element {
  const { controller, commands } = props;
  return (
    <div className="jp-AIStorLab-content">
      <Status controller={controller} />
      <div className="jp-AIStorLab-progress" aria-hidden={!controller.busy}>
        {controller.busy && <div className="jp-AIStorLab-progressBar" title={controller.busy} />}
      </div>
      {controller.busy && <div className="jp-AIStorLab-busy">{controller.busy}</div>}
      {controller.error && (
        <div className="jp-AIStorLab-error" role="alert">
          <span>{controller.error}</span>
          <button className="jp-AIStorLab-dismiss" title="Dismiss" onClick={() => controller.dismissError()}>
            <closeIcon.react tag="span" />
          </button>
        </div>
      )}
      <div className="jp-AIStorLab-filter">
        <FilterBox
          placeholder="Filter by name"
          updateFilter={(_fn, query) => controller.setFilter(query ?? '')}
          useFuzzyFilter={false}
        />
      </div>
      <div className="jp-AIStorLab-treeArea">
        <TreeView controller={controller} />
      </div>
      <DetailsView controller={controller} commands={commands} />
    </div>
  );
}
