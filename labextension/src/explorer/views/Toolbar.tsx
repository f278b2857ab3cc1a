/** The explorer's header: what is shown (current, a snapshot, a ref, a version), refresh, progress, errors. */
import React from 'react';

import { newestFirst } from '../../format';
import { timeText } from '../display';
import { ExplorerModel } from '../model';
import { sourcePath } from '../source';

/** The picker's options: `current`, `ref:NAME`, `snapshot:ID` or `version:N`. */
function choices(model: ExplorerModel): { value: string; label: string }[] {
  const loaded = model.loaded;
  const options = [{ value: 'current', label: 'Current' }];
  if (loaded?.kind === 'iceberg') {
    for (const [name, ref] of Object.entries(loaded.details.refs ?? {})) {
      options.push({ value: `ref:${name}`, label: `${ref.type} ${name}` });
    }
    for (const s of newestFirst(loaded.details.snapshots)) {
      options.push({ value: `snapshot:${s['snapshot-id']}`, label: `${s['snapshot-id']} · ${timeText(s['timestamp-ms'])}` });
    }
  } else if (loaded?.kind === 'delta') {
    for (const entry of [...loaded.details.history].sort((a, b) => b.version - a.version)) {
      options.push({ value: `snapshot:${entry.version}`, label: `version ${entry.version} · ${timeText(entry.timestamp)}` });
    }
  }
  return options;
}

function chosen(model: ExplorerModel): string {
  return model.version ? `snapshot:${model.version}` : model.ref ? `ref:${model.ref}` : 'current';
}

function pick(model: ExplorerModel, value: string): void {
  const [kind, ...rest] = value.split(':');
  const name = rest.join(':');
  void model.show(kind === 'snapshot' ? name : null, kind === 'ref' ? name : null);
}

export function Toolbar({ model }: { model: ExplorerModel }): JSX.Element {
  const versioned = model.loaded?.kind === 'iceberg' || model.loaded?.kind === 'delta';
  const busy = model.loading || model.rows.loading;
  return (
    <div className="jp-AIStorExplorer-toolbar">
      <h2 className="jp-AIStorExplorer-title">{sourcePath(model.source)}</h2>
      <button className="jp-Button jp-mod-styled jp-mod-reject" aria-label="Refresh" title="Load the table again" onClick={() => void model.refresh()}>
        Refresh
      </button>
      {versioned && (
        <label className="jp-AIStorExplorer-picker">
          Showing
          <select className="jp-mod-styled" aria-label="Snapshot shown" value={chosen(model)} onChange={event => pick(model, event.currentTarget.value)}>
            {choices(model).map(option => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
      )}
      {busy && <progress className="jp-AIStorExplorer-busy" aria-label="Loading" />}
      {model.error && (
        <p className="jp-AIStorExplorer-error" role="alert">
          {model.error}
        </p>
      )}
    </div>
  );
}
