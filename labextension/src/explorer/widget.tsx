/**
 * The explorer tab: a header (what is shown, refresh) over tabs of sections. Tables have a data grid
 * (paged, sorted and filtered by the service) and their history, whose grid shows the chosen
 * snapshot, and Iceberg tables their maintenance; views their SQL, schema and versions; shared tables
 * what a recipient sees.
 */
import { MainAreaWidget, ReactWidget, UseSignal } from '@jupyterlab/apputils';
import { tableRowsIcon } from '@jupyterlab/ui-components';
import { Panel, TabPanel, Widget } from '@lumino/widgets';
import React from 'react';

import { createGrid } from './grid';
import { ExplorerModel } from './model';
import { sourceId, sourcePath, sourceTitle } from './source';
import { DataBar } from './views/DataBar';
import { maintenanceSection } from './views/Maintenance';
import { Overview } from './views/Overview';
import { Profile } from './views/Profile';
import { Schema } from './views/Schema';
import { Timeline } from './views/Timeline';
import { Toolbar } from './views/Toolbar';

type Insert = (code: string) => void;

/** A React section that renders the model again on every change, once its details are in. */
function section(model: ExplorerModel, name: string, render: () => JSX.Element | null): Widget {
  const widget = ReactWidget.create(
    <UseSignal signal={model.changed}>
      {() => (model.loaded ? render() : <p className="jp-AIStorExplorer-note">{model.loading ? 'Loading…' : ''}</p>)}
    </UseSignal>
  );
  widget.addClass('jp-AIStorExplorer-section-panel');
  // A section scrolls: the keyboard can scroll it even when it holds no control.
  widget.node.tabIndex = 0;
  widget.title.label = name;
  return widget;
}

/** A bar over a grid of the model's rows; header clicks sort. The bar is as tall as its content
 * (CSS flex, as JupyterLab's CSV viewer lays out its grid), the grid takes the rest. */
function withGrid(model: ExplorerModel, name: string, bar: Widget, gridLabel: string): Widget {
  const panel = new Panel();
  panel.title.label = name;
  panel.addClass('jp-AIStorExplorer-gridPanel');
  const grid = createGrid(model.rows, {
    label: gridLabel,
    onHeaderClick: model.queryable ? column => void model.sortBy(model.rows.columns[column].name) : undefined
  });
  panel.addWidget(bar);
  panel.addWidget(grid);
  return panel;
}

export class ExplorerPanel extends Panel {
  constructor(readonly model: ExplorerModel, insert: Insert) {
    super();
    this.addClass('jp-AIStorExplorer-content');
    const toolbar = ReactWidget.create(<UseSignal signal={model.changed}>{() => <Toolbar model={model} />}</UseSignal>);
    toolbar.addClass('jp-AIStorExplorer-header');
    const tabs = new TabPanel();
    tabs.addClass('jp-AIStorExplorer-tabs');
    tabs.tabBar.node.setAttribute('aria-label', 'Explorer sections');
    for (const widget of this.sections(model, insert)) {
      tabs.addWidget(widget);
    }
    this.addWidget(toolbar);
    this.addWidget(tabs);
    this.tabs = tabs;
  }

  readonly tabs: TabPanel;

  private sections(model: ExplorerModel, insert: Insert): Widget[] {
    const dataBar = () =>
      ReactWidget.create(<UseSignal signal={model.changed}>{() => <DataBar model={model} />}</UseSignal>);
    const timeline = (name: string) => {
      const bar = section(model, name, () => <Timeline model={model} insert={insert} />);
      bar.addClass('jp-AIStorExplorer-timelinePanel');
      return bar;
    };
    const overview = section(model, 'Overview', () => <Overview loaded={model.loaded!} />);
    const schema = section(model, 'Schema', () => <Schema loaded={model.loaded!} />);
    switch (model.source.kind) {
      case 'iceberg':
        return [
          overview,
          schema,
          withGrid(model, 'Data', dataBar(), 'Rows'),
          withGrid(model, 'Snapshots', timeline('Snapshots'), 'Rows as of the chosen snapshot'),
          section(model, 'Profile', () => <Profile model={model} />),
          maintenanceSection(model.source)
        ];
      case 'delta':
        return [
          overview,
          schema,
          withGrid(model, 'Data', dataBar(), 'Rows'),
          withGrid(model, 'History', timeline('History'), 'Rows as of the chosen version')
        ];
      case 'view':
        return [overview, schema, section(model, 'Versions', () => <Timeline model={model} insert={insert} />)];
      case 'shared':
        return [
          overview,
          withGrid(model, 'Preview', dataBar(), 'Preview rows a recipient reads'),
          section(model, 'Versions and audit', () => <Timeline model={model} insert={insert} />)
        ];
    }
  }
}

/** The main-area tab of one source. */
export function explorerWidget(model: ExplorerModel, insert: Insert): MainAreaWidget<ExplorerPanel> {
  const widget = new MainAreaWidget({ content: new ExplorerPanel(model, insert) });
  widget.id = sourceId(model.source);
  widget.addClass('jp-AIStorExplorer');
  widget.title.label = sourceTitle(model.source);
  widget.title.caption = sourcePath(model.source);
  widget.title.icon = tableRowsIcon;
  widget.title.closable = true;
  return widget;
}
