/** Above the grid: the filter (Iceberg filter text, the server's error under it), the sort, the row count. */
import React, { useState } from 'react';

import { countText } from '../display';
import { ExplorerModel } from '../model';

export function DataBar({ model }: { model: ExplorerModel }): JSX.Element {
  const [text, setText] = useState(model.filter);
  const { rows } = model;
  const sort = rows.sort ? `${rows.sort.column}:${rows.sort.direction}` : '';
  const status = rows.loading
    ? 'Loading rows…'
    : rows.total !== null
      ? `${countText(rows.total)} rows`
      : `${countText(rows.rowCount('body'))}+ rows`;
  return (
    <div className="jp-AIStorExplorer-dataBar">
      {model.queryable && (
        <form
          className="jp-AIStorExplorer-filter"
          onSubmit={event => {
            event.preventDefault();
            void model.setFilter(text);
          }}
        >
          <input
            className="jp-mod-styled"
            type="text"
            aria-label="Filter rows"
            placeholder="Filter, e.g. id > 5 and name = 'x'"
            value={text}
            onChange={event => setText(event.currentTarget.value)}
          />
          <button type="submit" className="jp-Button jp-mod-styled jp-mod-accept" aria-label="Apply the filter">
            Filter
          </button>
          <select
            className="jp-mod-styled"
            aria-label="Sort"
            value={sort}
            onChange={event => {
              const [column, direction] = event.currentTarget.value.split(':');
              void model.setSort(column ? { column, direction: direction as 'asc' | 'desc' } : null);
            }}
          >
            <option value="">Unsorted</option>
            {rows.columns.flatMap(c => [
              <option key={`${c.name}:asc`} value={`${c.name}:asc`}>
                {c.name} ascending
              </option>,
              <option key={`${c.name}:desc`} value={`${c.name}:desc`}>
                {c.name} descending
              </option>
            ])}
          </select>
        </form>
      )}
      <span className="jp-AIStorExplorer-status" role="status">
        {status}
        {rows.snapshotId && <span className="jp-AIStorExplorer-shown"> · snapshot {rows.snapshotId}</span>}
      </span>
      {rows.loading && <progress className="jp-AIStorExplorer-busy" aria-label="Loading rows" />}
      {rows.error && (
        <p className="jp-AIStorExplorer-error" role="alert">
          {rows.error}
        </p>
      )}
    </div>
  );
}
