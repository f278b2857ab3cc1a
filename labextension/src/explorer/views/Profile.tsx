/** The column profile, computed by the service on demand: nulls, distinct, min/max and a histogram. */
import React from 'react';

import { countText } from '../display';
import { histogramBars } from '../histogram';
import { ExplorerModel } from '../model';
import { Cell, Histogram } from '../types';

const WIDTH = 120;
const HEIGHT = 28;

function Bars({ histogram, column }: { histogram: Histogram; column: string }): JSX.Element {
  return (
    <svg className="jp-AIStorExplorer-histogram" width={WIDTH} height={HEIGHT} role="img" aria-label={`Histogram of ${column}`}>
      {histogramBars(histogram, WIDTH, HEIGHT).map((bar, i) => (
        <rect key={i} x={bar.x} y={bar.y} width={bar.width} height={bar.height}>
          <title>{bar.label}</title>
        </rect>
      ))}
    </svg>
  );
}

const cell = (value: Cell) => (value === null ? '∅' : String(value));

export function Profile({ model }: { model: ExplorerModel }): JSX.Element {
  const profile = model.profile;
  return (
    <div className="jp-AIStorExplorer-profile">
      <div className="jp-AIStorExplorer-buttons">
        <button
          className="jp-Button jp-mod-styled jp-mod-accept"
          aria-label="Compute the column profile"
          disabled={model.profileLoading}
          onClick={() => void model.loadProfile()}
        >
          {profile ? 'Compute again' : 'Compute profile'}
        </button>
        {model.profileLoading && (
          <span className="jp-AIStorExplorer-progress" role="status">
            Reading the table's files…
          </span>
        )}
      </div>
      {model.profileError && (
        <p className="jp-AIStorExplorer-error" role="alert">
          {model.profileError}
        </p>
      )}
      {!profile && !model.profileLoading && (
        <p className="jp-AIStorExplorer-note">
          Null counts, distinct values, min/max and a histogram per column, from the manifests first and a bounded sample of
          the data files.
        </p>
      )}
      {profile && (
        <>
          <p className="jp-AIStorExplorer-note">
            {countText(profile.rowCount)} rows. {profile.sample.complete ? 'Read in full' : 'Read a sample'}:{' '}
            {countText(profile.sample.files)} data file{profile.sample.files === 1 ? '' : 's'}, {countText(profile.sample.rows)} rows.
          </p>
          <table className="jp-AIStorExplorer-table" aria-label="Column profile">
            <thead>
              <tr>
                {['column', 'type', 'nulls', 'distinct', 'min', 'max', 'histogram', 'from'].map(c => (
                  <th key={c} scope="col">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {profile.columns.map(c => (
                <tr key={c.name}>
                  <td>{c.name}</td>
                  <td>
                    <code>{c.type}</code>
                  </td>
                  <td>{countText(c.nullCount)}</td>
                  <td>{countText(c.distinct)}</td>
                  <td>{cell(c.min)}</td>
                  <td>{cell(c.max)}</td>
                  <td>{c.histogram ? <Bars histogram={c.histogram} column={c.name} /> : '—'}</td>
                  <td>{c.source}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}
