/**
 * Lumino's DataGrid over a RowsModel, in JupyterLab's theme colors (read from its CSS variables and
 * read again when the theme changes), focusable with arrow-key navigation, and sorting on a header
 * click.
 */
import { BasicKeyHandler, BasicMouseHandler, BasicSelectionModel, CellRenderer, DataGrid, TextRenderer } from '@lumino/datagrid';
import { Widget } from '@lumino/widgets';

import { LOADING, RowsModel } from './gridModel';

function cssVar(name: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim();
}

/** `#rrggbb` with an alpha (canvas fills have no color-mix); other colors as they are. */
function translucent(color: string, alpha: number): string {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  return hex ? `rgba(${hex.slice(1).map(h => parseInt(h, 16)).join(', ')}, ${alpha})` : color;
}

function gridStyle(): DataGrid.Style {
  const lines = cssVar('--jp-border-color2');
  const brand = cssVar('--jp-brand-color1');
  return {
    ...DataGrid.defaultStyle,
    voidColor: cssVar('--jp-layout-color0'),
    backgroundColor: cssVar('--jp-layout-color0'),
    rowBackgroundColor: i => (i % 2 ? cssVar('--jp-layout-color1') : cssVar('--jp-layout-color0')),
    gridLineColor: lines,
    headerBackgroundColor: cssVar('--jp-layout-color2'),
    headerGridLineColor: lines,
    selectionFillColor: translucent(brand, 0.15),
    selectionBorderColor: brand,
    cursorBorderColor: brand,
    headerSelectionFillColor: translucent(brand, 0.2),
    headerSelectionBorderColor: brand
  };
}

const cellText = ({ value }: CellRenderer.CellConfig): string =>
  value === LOADING ? '…' : value === null || value === undefined ? '∅' : String(value);

function renderers(): { body: TextRenderer; header: TextRenderer } {
  const font = `${cssVar('--jp-code-font-size') || '13px'} ${cssVar('--jp-code-font-family') || 'monospace'}`;
  const color = cssVar('--jp-ui-font-color1');
  const dim = cssVar('--jp-ui-font-color3');
  return {
    body: new TextRenderer({
      font,
      format: cellText,
      textColor: ({ value }) => (value === LOADING || value === null ? dim : color),
      horizontalAlignment: ({ value }) => (typeof value === 'number' ? 'right' : 'left')
    }),
    header: new TextRenderer({ font: `bold ${font}`, textColor: color, format: cellText })
  };
}

/** A header click sorts (away from the column's edges, which resize it). */
class SortingMouseHandler extends BasicMouseHandler {
  constructor(private onHeaderClick: ((column: number) => void) | null) {
    super();
  }

  onMouseDown(grid: DataGrid, event: MouseEvent): void {
    const hit = grid.hitTest(event.clientX, event.clientY);
    const edge = 6;
    if (this.onHeaderClick && hit.region === 'column-header' && hit.x > edge && hit.x < hit.width - edge) {
      this.onHeaderClick(hit.column);
      return;
    }
    super.onMouseDown(grid, event);
  }
}

export interface IGridOptions {
  label: string;
  /** Called with the column index of a clicked header; none: headers do not sort. */
  onHeaderClick?: (column: number) => void;
}

export function createGrid(model: RowsModel, options: IGridOptions): DataGrid {
  const grid = new DataGrid({
    defaultSizes: { rowHeight: 24, columnWidth: 140, rowHeaderWidth: 56, columnHeaderHeight: 28 },
    minimumSizes: { rowHeight: 20, columnWidth: 40, rowHeaderWidth: 40, columnHeaderHeight: 24 }
  });
  grid.addClass('jp-AIStorExplorer-grid');
  grid.dataModel = model;
  grid.selectionModel = new BasicSelectionModel({ dataModel: model, selectionMode: 'cell' });
  grid.keyHandler = new BasicKeyHandler();
  grid.mouseHandler = new SortingMouseHandler(options.onHeaderClick ?? null);
  grid.copyConfig = { ...grid.copyConfig, headers: 'all' };
  // Focusable as one control; arrow keys move the cursor cell (BasicKeyHandler). A canvas has no
  // rows for role="grid" to name, so it is a labelled region.
  grid.node.tabIndex = 0;
  grid.node.setAttribute('role', 'region');
  grid.node.setAttribute('aria-roledescription', 'data grid');
  grid.node.setAttribute('aria-label', options.label);
  const paint = () => {
    grid.style = gridStyle();
    const { body, header } = renderers();
    grid.cellRenderers.update({ body, 'column-header': header, 'row-header': header, 'corner-header': header });
  };
  paint();
  // JupyterLab names the theme on <body> once its CSS is in: colors are read again then.
  const observer = new MutationObserver(paint);
  observer.observe(document.body, { attributes: true, attributeFilter: ['data-jp-theme-name', 'data-jp-theme-light'] });
  // The grid is a flex item under bars whose height changes (an error shown): Lumino only hears of
  // resizes from its parents' layouts, so the node's own size changes are passed on.
  const resized = new ResizeObserver(() => grid.processMessage(Widget.ResizeMessage.UnknownSize));
  resized.observe(grid.node);
  grid.disposed.connect(() => {
    observer.disconnect();
    resized.disconnect();
  });
  // The keyboard starts on the first cell, so arrow keys move a visible cursor.
  grid.node.addEventListener('focus', () => {
    const selection = grid.selectionModel;
    if (selection && selection.isEmpty && model.rowCount('body') > 0 && model.columns.length) {
      selection.select({ r1: 0, c1: 0, r2: 0, c2: 0, cursorRow: 0, cursorColumn: 0, clear: 'all' });
    }
  });
  return grid;
}
