/**
 * The explorer's Maintenance section's state for one Iceberg table: its health and last run, its run
 * history, a preview (dry run) and the run that applied it. Loaded when the section is first shown:
 * the health reads the table's manifests, which a glance at the rows should not pay for.
 */
import { ISignal, Signal } from '@lumino/signaling';

import * as api from './api';
import { IMaintenanceView, IRunRecord, MaintenanceCall, maintenanceErrorText } from './maintenance';

export interface IIcebergTable {
  warehouse: string;
  namespace: string;
  table: string;
}

/** What is under way: one thing at a time (the buttons are disabled meanwhile). */
export type MaintenanceBusy = 'loading' | 'previewing' | 'applying' | null;

export class MaintenanceModel {
  constructor(readonly source: IIcebergTable) {}

  view: IMaintenanceView | null = null;
  history: IRunRecord[] | null = null;
  /** The last dry run, until it is applied or the section is loaded again. */
  preview: IRunRecord | null = null;
  /** The last run made from this section. */
  result: IRunRecord | null = null;
  busy: MaintenanceBusy = null;
  error: string | null = null;
  /** Why the history could not be read (it needs its own permission). */
  historyError: string | null = null;

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /** Loads the section the first time it is shown. */
  async loadOnce(): Promise<void> {
    if (!this.view && !this.busy && !this.error) {
      await this.load();
    }
  }

  /** Health, settings and last run, and the history, again. */
  async load(): Promise<void> {
    await this.step('loading', 'show', async () => {
      await this.reload();
      this.preview = null;
    });
  }

  /** A dry run of the enabled operations: what would go, changing nothing. */
  async previewRun(): Promise<void> {
    await this.step('previewing', 'preview', async () => {
      const { warehouse, namespace, table } = this.source;
      this.preview = await api.runMaintenance(warehouse, namespace, table, true);
      this.result = null;
    });
  }

  /** Runs the enabled operations for real (the caller has asked the user first), then reloads. */
  async apply(): Promise<void> {
    if (this.busy) {
      return;
    }
    this.result = null;
    await this.step('applying', 'apply', async () => {
      const { warehouse, namespace, table } = this.source;
      this.result = await api.runMaintenance(warehouse, namespace, table, false);
      this.preview = null;
    });
    if (this.result) {
      await this.step('loading', 'show', () => this.reload());
    }
  }

  private async reload(): Promise<void> {
    const { warehouse, namespace, table } = this.source;
    [this.view, this.history] = await Promise.all([
      api.maintenanceView(warehouse, namespace, table),
      api.maintenanceHistory(warehouse, namespace, table).catch(error => {
        // Health without history is still worth showing: the history's own error says what is missing.
        this.historyError = maintenanceErrorText(error, 'history');
        return null;
      })
    ]);
  }

  /** Runs one call with its busy state; a call while another runs is dropped (one at a time). */
  private async step(busy: MaintenanceBusy, call: MaintenanceCall, work: () => Promise<void>): Promise<void> {
    if (this.busy) {
      return;
    }
    this.busy = busy;
    this.error = null;
    this.historyError = null;
    this._changed.emit();
    try {
      await work();
    } catch (error) {
      this.error = maintenanceErrorText(error, call);
    }
    this.busy = null;
    this._changed.emit();
  }

  private _changed = new Signal<this, void>(this);
}
