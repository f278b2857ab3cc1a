/** The panel's content: service status, search, message, progress, uploads, the tree (or the
 * search's results) and the details. */
import { closeIcon, InputGroup, searchIcon } from '@jupyterlab/ui-components';
import { CommandRegistry } from '@lumino/commands';
import React from 'react';

import { UploadsView } from '../buckets/UploadsView';
import { PanelController } from '../controller';
import { SearchResults } from '../search/SearchResults';
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
        <InputGroup
          type="search"
          aria-label="Search warehouses, tables, shares and buckets"
          placeholder="Search by name"
          value={controller.search.query}
          onChange={event => controller.search.setQuery(event.currentTarget.value)}
          onKeyDown={event => event.key === 'Escape' && controller.search.setQuery('')}
          rightIcon={searchIcon}
        />
      </div>
      <UploadsView controller={controller} />
      <div className="jp-AIStorLab-treeArea">
        {controller.search.active ? (
          <SearchResults controller={controller} />
        ) : (
          <TreeView controller={controller} commands={commands} />
        )}
      </div>
      <DetailsView controller={controller} commands={commands} />
    </div>
  );
}
