/**
 * The history section: Iceberg snapshots (with branches and tags) or Delta versions as a vertical
 * timeline; the chosen entry is what the grids show, with its summary against its parent and cells
 * that read the table as of it. Views list their versions; shared tables their versions and audit.
 */
import React from 'react';

import { newestFirst } from '../../format';
import { timeText } from '../display';
import { ExplorerModel } from '../model';
import { parentOf, summaryDiff } from '../summaryDiff';
import { deltaTimeTravel, icebergTimeTravel, TRAVEL_KINDS, travelLabel } from '../timeTravel';
import { IDeltaDetails, IExplorerSnapshot, IIcebergDetails } from '../types';
import { Section, Table, valueText } from './common';

type Insert = (code: string) => void;

function InsertButtons(props: { format: 'iceberg' | 'delta'; code: (kind: (typeof TRAVEL_KINDS)[number]) => string; insert: Insert }): JSX.Element {
  return (
    <div className="jp-AIStorExplorer-buttons">
      {TRAVEL_KINDS.map(kind => {
        const label = `Insert ${travelLabel(props.format, kind)} cell`;
        return (
          <button key={kind} className="jp-Button jp-mod-styled jp-mod-accept" aria-label={label} onClick={() => props.insert(props.code(kind))}>
            {label}
          </button>
        );
      })}
    </div>
  );
}

function counts(summary: Record<string, string>): string {
  const parts: string[] = [];
  const add = (key: string, sign: string, noun: string) => {
    const count = summary[key];
    if (count && count !== '0') {
      parts.push(`${sign}${count} ${noun}${count === '1' ? '' : 's'}`);
    }
  };
  add('added-data-files', '+', 'file');
  add('deleted-data-files', '−', 'file');
  add('added-records', '+', 'record');
  add('deleted-records', '−', 'record');
  return parts.join(' · ') || 'no file changes';
}

function IcebergTimeline(props: { model: ExplorerModel; details: IIcebergDetails; insert: Insert }): JSX.Element {
  const { model, details, insert } = props;
  const refs = Object.entries(details.refs ?? {});
  const shown = model.version ?? (model.ref ? details.refs[model.ref]?.snapshotId : null) ?? details.currentSnapshotId;
  const selected = details.snapshots.find(s => s['snapshot-id'] === shown) ?? null;
  if (!details.snapshots.length) {
    return <p className="jp-AIStorExplorer-note">No snapshots yet: write rows to the table and refresh.</p>;
  }
  const source = model.source as { warehouse: string; namespace: string; table: string };
  return (
    <div className="jp-AIStorExplorer-timelineLayout">
      <ol className="jp-AIStorExplorer-timeline" aria-label="Snapshots">
        {newestFirst(details.snapshots).map(snapshot => {
          const id = snapshot['snapshot-id'];
          const s = snapshot as IExplorerSnapshot;
          const isSelected = id === shown;
          return (
            <li key={id} className={isSelected ? 'jp-mod-selected' : ''}>
              <button
                className="jp-AIStorExplorer-entry"
                aria-pressed={isSelected}
                aria-label={`Snapshot ${id}, ${s.operation ?? snapshot.summary?.operation ?? 'snapshot'} at ${timeText(snapshot['timestamp-ms'])}`}
                data-snapshot-id={id}
                onClick={() => void model.show(id === details.currentSnapshotId ? null : id)}
              >
                <span className="jp-AIStorExplorer-operation">{s.operation ?? snapshot.summary?.operation ?? 'snapshot'}</span>
                <span className="jp-AIStorExplorer-time">{timeText(snapshot['timestamp-ms'])}</span>
                {id === details.currentSnapshotId && <span className="jp-AIStorExplorer-badge">current</span>}
                {refs
                  .filter(([, ref]) => ref.snapshotId === id)
                  .map(([name, ref]) => (
                    <span key={name} className={`jp-AIStorExplorer-badge jp-mod-${ref.type}`}>
                      {ref.type === 'tag' ? 'tag' : 'branch'}: {name}
                    </span>
                  ))}
                <span className="jp-AIStorExplorer-counts">{counts(snapshot.summary ?? {})}</span>
              </button>
            </li>
          );
        })}
      </ol>
      {selected && (
        <div className="jp-AIStorExplorer-snapshotDetail" aria-label="Chosen snapshot">
          <h3>
            Snapshot <code className="jp-AIStorExplorer-id">{selected['snapshot-id']}</code>
          </h3>
          <p className="jp-AIStorExplorer-note">The grid below and the Data tab show the table as of this snapshot.</p>
          <Table
            label="Changes against the parent snapshot"
            columns={['total', 'parent', 'this snapshot', 'change']}
            rows={summaryDiff(selected, parentOf(selected, details.snapshots)).map(c => [c.key, c.before ?? '—', c.after ?? '—', c.change ?? '—'])}
            empty="The summary has no totals."
          />
          <InsertButtons format="iceberg" insert={insert} code={kind => icebergTimeTravel(source, selected['snapshot-id'], kind)} />
        </div>
      )}
    </div>
  );
}

function DeltaTimeline(props: { model: ExplorerModel; details: IDeltaDetails; insert: Insert }): JSX.Element {
  const { model, details, insert } = props;
  const shown = model.version ?? String(details.version);
  const selected = details.history.find(h => String(h.version) === shown) ?? null;
  const source = model.source as { bucket: string; path: string };
  return (
    <div className="jp-AIStorExplorer-timelineLayout">
      <ol className="jp-AIStorExplorer-timeline" aria-label="Versions">
        {[...details.history]
          .sort((a, b) => b.version - a.version)
          .map(entry => {
            const isSelected = String(entry.version) === shown;
            return (
              <li key={entry.version} className={isSelected ? 'jp-mod-selected' : ''}>
                <button
                  className="jp-AIStorExplorer-entry"
                  aria-pressed={isSelected}
                  aria-label={`Version ${entry.version}, ${entry.operation ?? 'commit'}`}
                  onClick={() => void model.show(entry.version === details.version ? null : String(entry.version))}
                >
                  <span className="jp-AIStorExplorer-operation">
                    v{entry.version} {entry.operation ?? 'commit'}
                  </span>
                  <span className="jp-AIStorExplorer-time">{timeText(entry.timestamp)}</span>
                  {entry.version === details.version && <span className="jp-AIStorExplorer-badge">current</span>}
                </button>
              </li>
            );
          })}
      </ol>
      {selected && (
        <div className="jp-AIStorExplorer-snapshotDetail" aria-label="Chosen version">
          <h3>Version {selected.version}</h3>
          <p className="jp-AIStorExplorer-note">The grid below and the Data tab show the table as of this version.</p>
          <Table
            label="Operation parameters"
            columns={['parameter', 'value']}
            rows={Object.entries(selected.operationParameters ?? {}).map(([key, value]) => [key, valueText(value)])}
            empty="No operation parameters."
          />
          <InsertButtons format="delta" insert={insert} code={kind => deltaTimeTravel(source, selected.version, kind)} />
        </div>
      )}
    </div>
  );
}

/** Records of the sharing server (audit entries, versions): what happened first, then the rest. */
const FIRST = ['time', 'timestamp', 'version', 'operation', 'status', 'files', 'rows'];

function records(label: string, entries: Record<string, unknown>[], empty: string): JSX.Element {
  const keys = [...new Set(entries.flatMap(entry => Object.keys(entry)))];
  const columns = [...FIRST.filter(key => keys.includes(key)), ...keys.filter(key => !FIRST.includes(key))];
  const cell = (key: string, value: unknown) =>
    (key === 'time' || key === 'timestamp') && value ? timeText(value as string | number) : valueText(value ?? '');
  return (
    <Table label={label} columns={columns} rows={entries.map(entry => columns.map(c => cell(c, entry[c])))} empty={empty} nowrap />
  );
}

export function Timeline(props: { model: ExplorerModel; insert: Insert }): JSX.Element | null {
  const { model, insert } = props;
  const loaded = model.loaded;
  switch (loaded?.kind) {
    case 'iceberg':
      return <IcebergTimeline model={model} details={loaded.details} insert={insert} />;
    case 'delta':
      return <DeltaTimeline model={model} details={loaded.details} insert={insert} />;
    case 'view':
      return (
        <Section title="Versions">
          <Table
            label="View versions"
            columns={['version', 'time', 'summary']}
            rows={[...loaded.details.versions]
              .sort((a, b) => b.versionId - a.versionId)
              .map(v => [
                <>
                  {v.versionId}
                  {v.versionId === loaded.details.currentVersionId && <span className="jp-AIStorExplorer-badge">current</span>}
                </>,
                timeText(v.timestampMs),
                Object.entries(v.summary ?? {}).map(([k, val]) => `${k}=${val}`).join(', ')
              ])}
            empty="No versions."
          />
        </Section>
      );
    case 'shared':
      return (
        <>
          <Section title="Versions">
            {loaded.details.versions
              ? records('Shared versions', loaded.details.versions, 'No versions.')
              : <p className="jp-AIStorExplorer-note">Recipients read version {loaded.details.version ?? 'unknown'}.</p>}
          </Section>
          <Section title="Audit">{records('Audit entries', loaded.details.audit, 'No recipient has read this table yet.')}</Section>
        </>
      );
    default:
      return null;
  }
}
