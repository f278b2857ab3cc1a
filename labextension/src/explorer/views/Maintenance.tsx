/**
 * The Maintenance section of an Iceberg table: its health (files, small files, snapshots, manifests,
 * last run), the data files' size histogram, a preview of what maintenance would do, applying it
 * (after a confirmation: it deletes files), and the run history.
 */
import { ReactWidget, UseSignal } from '@jupyterlab/apputils';
import type { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import React from 'react';

import { confirm } from '../../forms';
import { bytesText, countText } from '../display';
import { histogramBars } from '../histogram';
import {
  applyQuestion,
  hasChanges,
  historyRow,
  IRunRecord,
  ITableHealth,
  lastRunText,
  operationSummary,
  runSummary,
  setCommand,
  settingRows,
  settingsSummary,
  sizeBins,
  smallFilesText
} from '../maintenance';
import { IIcebergTable, MaintenanceModel } from '../maintenanceModel';
import { Facts, Section, Table } from './common';

const BAR_LENGTH = 160;

const BUSY_TEXT = {
  loading: 'Reading the table’s manifests…',
  previewing: 'Working out what maintenance would do…',
  applying: 'Running maintenance: it rewrites, expires and deletes as the preview said…'
};

/** Run-to-run values (times, durations, sizes of metadata files) carry a class tests can mask. */
const Volatile = ({ kind, children }: { kind: 'time' | 'bytes'; children: React.ReactNode }) => (
  <span className={`jp-AIStorExplorer-${kind}`}>{children}</span>
);

function Health({ health, lastRun }: { health: ITableHealth; lastRun: IRunRecord | null }): JSX.Element {
  return (
    <Facts
      label="Table health"
      facts={[
        [
          'Data files',
          <>
            {countText(health['data-files'])} (<Volatile kind="bytes">{bytesText(health.bytes)}</Volatile>)
          </>
        ],
        ['Small files', smallFilesText(health)],
        ['Delete files', countText(health['delete-files'])],
        ['Snapshots', countText(health.snapshots)],
        ['Manifests', countText(health.manifests)],
        ['Last maintenance', <Volatile kind="time">{lastRunText(lastRun)}</Volatile>]
      ]}
    />
  );
}

/** The bins as rows, each with a bar as long as its count (scaled to the fullest bin). */
function SizeHistogram({ health }: { health: ITableHealth }): JSX.Element {
  const bins = sizeBins(health.histogram);
  // histogramBars scales heights; laid on their side, they are the bars' lengths.
  const bars = histogramBars({ kind: 'values', values: bins }, bins.length, BAR_LENGTH);
  return (
    <Table
      label="Data files by size"
      columns={['size', 'data files', 'share']}
      rows={bins.map((bin, i) => [
        bin.value,
        countText(bin.count),
        <svg className="jp-AIStorExplorer-histogram" width={BAR_LENGTH} height={10} aria-hidden="true">
          <rect x={0} y={1} width={bars[i]?.height ?? 0} height={8} />
        </svg>
      ])}
      empty="No size bins."
    />
  );
}

/** A preview or a run: one line for the whole, one row per operation, and the failures. */
function RunReport({ run, label }: { run: IRunRecord; label: string }): JSX.Element {
  return (
    <div aria-label={label} role="group">
      <p className="jp-AIStorExplorer-note" aria-live="polite">
        {runSummary(run)}
      </p>
      <Table
        label={`${label}: operations`}
        columns={['operation', run['dry-run'] ? 'would do' : 'did']}
        rows={run.operations.map(report => [report.operation, <Volatile kind="bytes">{operationSummary(report)}</Volatile>])}
        empty="No operation ran: all are disabled for this table."
      />
      {run.errors.map(error => (
        <p key={error.operation} className="jp-AIStorExplorer-error" role="alert">
          {error.operation} failed: {error.message}
        </p>
      ))}
    </div>
  );
}

/** While something runs the buttons stay focusable (a disabled button would drop the keyboard's
 * focus): they say they are disabled and do nothing. */
const WAITING: React.CSSProperties = { opacity: 0.6, cursor: 'wait' };
// JupyterLab's warn button looks the same disabled or not.
const UNAVAILABLE: React.CSSProperties = { opacity: 0.5, cursor: 'not-allowed' };

export function Maintenance({ model }: { model: MaintenanceModel }): JSX.Element {
  const { view, preview, result, busy } = model;
  const name = `${model.source.namespace}.${model.source.table}`;
  const previewButton = React.useRef<HTMLButtonElement>(null);
  const idle = (action: () => Promise<void>) => () => {
    if (!model.busy) {
      void action();
    }
  };
  const apply = async () => {
    if (preview && (await confirm('Apply maintenance', applyQuestion(name, preview), 'Apply'))) {
      await model.apply();
      // Apply is disabled now (its preview is spent): the keyboard goes on from Preview.
      previewButton.current?.focus();
    }
  };
  const waiting = busy ? { 'aria-disabled': true, style: WAITING } : {};
  const applyHint = !preview
    ? 'Preview first: Apply runs what the preview shows'
    : hasChanges(preview)
      ? undefined
      : 'The preview has nothing to apply';
  return (
    <div className="jp-AIStorExplorer-maintenance" aria-busy={busy !== null}>
      <div className="jp-AIStorExplorer-buttons">
        <button
          ref={previewButton}
          className="jp-Button jp-mod-styled jp-mod-accept"
          aria-label="Preview maintenance (a dry run: nothing changes)"
          {...waiting}
          onClick={idle(() => model.previewRun())}
        >
          Preview maintenance
        </button>
        <button
          className="jp-Button jp-mod-styled jp-mod-warn"
          aria-label="Apply the previewed maintenance"
          title={applyHint}
          disabled={applyHint !== undefined}
          style={applyHint === undefined ? undefined : UNAVAILABLE}
          {...waiting}
          onClick={idle(apply)}
        >
          Apply
        </button>
        <button
          className="jp-Button jp-mod-styled jp-mod-reject"
          aria-label="Reload the table's health and history"
          {...waiting}
          onClick={idle(() => model.load())}
        >
          Reload
        </button>
        {busy && (
          <span className="jp-AIStorExplorer-progress" role="status">
            {BUSY_TEXT[busy]}
          </span>
        )}
      </div>
      {model.error && (
        <p className="jp-AIStorExplorer-error" role="alert">
          {model.error}
        </p>
      )}
      {preview && (
        <Section title="Preview">
          <RunReport run={preview} label="Preview" />
        </Section>
      )}
      {result && (
        <Section title="Result">
          <RunReport run={result} label="Result" />
        </Section>
      )}
      {view && (
        <>
          <Section title="Health">
            <Health health={view.health} lastRun={view['last-run']} />
          </Section>
          <Section title="Data file sizes">
            <SizeHistogram health={view.health} />
          </Section>
          <Section title="Settings">
            <details>
              <summary>{settingsSummary(view.settings)}</summary>
              <Table
                label="Maintenance settings"
                columns={['setting', 'value', 'from', 'what it does']}
                rows={settingRows(view.settings)}
                empty="No settings."
              />
              <p className="jp-AIStorExplorer-note">
                Change one with <code>{setCommand(model.source)}</code>
              </p>
            </details>
          </Section>
        </>
      )}
      {!view && !busy && !model.error && <p className="jp-AIStorExplorer-note">Not loaded yet.</p>}
      <Section title="History">
        {model.historyError && (
          <p className="jp-AIStorExplorer-error" role="alert">
            {model.historyError}
          </p>
        )}
        {model.history && (
          <Table
            label="Maintenance runs, newest first"
            columns={['started', 'took', 'trigger', 'did', 'freed', 'errors']}
            rows={model.history.map(run => {
              const [started, took, ...rest] = historyRow(run);
              return [<Volatile kind="time">{started}</Volatile>, <Volatile kind="time">{took}</Volatile>, ...rest];
            })}
            empty="No maintenance has run on this table yet."
            nowrap
          />
        )}
      </Section>
    </div>
  );
}

/** The section as a tab: loaded the first time it is shown (its health reads the manifests). */
class MaintenanceSection extends ReactWidget {
  constructor(private readonly model: MaintenanceModel) {
    super();
    this.addClass('jp-AIStorExplorer-section-panel');
    // A section scrolls: the keyboard can scroll it even when it holds no control.
    this.node.tabIndex = 0;
    this.title.label = 'Maintenance';
  }

  protected render(): JSX.Element {
    return <UseSignal signal={this.model.changed}>{() => <Maintenance model={this.model} />}</UseSignal>;
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    void this.model.loadOnce();
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    if (this.isVisible) {
      void this.model.loadOnce();
    }
  }
}

export function maintenanceSection(source: IIcebergTable): Widget {
  return new MaintenanceSection(new MaintenanceModel(source));
}
