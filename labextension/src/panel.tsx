/** The side panel widget: JupyterLab's SidePanel with a toolbar, rendering the controller's state. */
import {
  addIcon,
  addToolbarButtonClass,
  LabIcon,
  ReactWidget,
  refreshIcon,
  shareIcon,
  SidePanel,
  ToolbarButtonComponent,
  UseSignal
} from '@jupyterlab/ui-components';
import { Panel, Widget } from '@lumino/widgets';
import { CommandRegistry } from '@lumino/commands';
import React from 'react';

import { CommandIDs } from './commandIds';
import { PanelController } from './controller';
import { aistorIcon } from './icon';
import { PanelView } from './views/PanelView';

export const PANEL_ID = 'aistor-lab-panel';

export class AIStorPanel extends SidePanel {
  constructor(readonly controller: PanelController, commands: CommandRegistry) {
    // A plain panel as content: one view needs no accordion and its section title.
    super({ content: new Panel() });
    this.id = PANEL_ID;
    this.addClass('jp-AIStorLab');
    this.title.icon = aistorIcon;
    this.title.caption = 'AIStor: warehouses, tables and shares';
    const heading = document.createElement('h2');
    heading.textContent = 'AIStor';
    this.header.addWidget(new Widget({ node: heading }));
    // The component, not the ToolbarButton widget: that one marks every button aria-pressed, which
    // a plain action button must not have.
    const button = (id: string, icon: LabIcon) =>
      addToolbarButtonClass(
        ReactWidget.create(
          <ToolbarButtonComponent icon={icon} tooltip={commands.caption(id)} onClick={() => void commands.execute(id)} />
        )
      );
    this.toolbar.addItem('refresh', button(CommandIDs.refresh, refreshIcon));
    this.toolbar.addItem('new-warehouse', button(CommandIDs.createWarehouse, addIcon));
    this.toolbar.addItem('new-share', button(CommandIDs.createShare, shareIcon));
    const view = ReactWidget.create(
      <UseSignal signal={controller.changed}>
        {() => <PanelView controller={controller} commands={commands} />}
      </UseSignal>
    );
    view.addClass('jp-AIStorLab-view');
    this.addWidget(view);
  }
}
