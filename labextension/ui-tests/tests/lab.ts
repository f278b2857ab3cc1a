/** What the panel's UI tests share: running a cell, finding the panel and its rows, dialogs. */
import AxeBuilder from '@axe-core/playwright';
import { expect, IJupyterLabPageFixture } from '@jupyterlab/galata';

export const panel = (page: IJupyterLabPageFixture) => page.locator('#aistor-lab-panel');
export const row = (page: IJupyterLabPageFixture, id: string) => page.locator(`.jp-AIStorLab-row[data-id="${id}"]`);
export const details = (page: IJupyterLabPageFixture) => panel(page).locator('.jp-AIStorLab-details');

/** Puts `source` into cell `index` of the open notebook (typing it would be slow, and the editor
 * would indent `%aistor` lines), runs it, and answers its text output. */
export async function runCell(page: IJupyterLabPageFixture, index: number, source: string): Promise<string> {
  await page.evaluate(
    ([i, text]) => {
      const notebook = (window as any).jupyterapp.shell.currentWidget.content.model.sharedModel;
      if (i < notebook.cells.length) {
        notebook.cells[i].setSource(text);
      } else {
        notebook.insertCell(i, { cell_type: 'code', source: text });
      }
    },
    [index, source] as const
  );
  await page.notebook.runCell(index);
  return ((await page.notebook.getCellTextOutput(index)) ?? []).join('\n');
}

/** Opens a row of the tree by its caret (it must be closed). */
export async function expand(page: IJupyterLabPageFixture, id: string): Promise<void> {
  await expect(row(page, id)).toBeVisible();
  await row(page, id).locator('.jp-AIStorLab-caret').click();
  await expect(row(page, id)).toHaveAttribute('aria-expanded', 'true');
}

/** The panel, shown and refreshed (what cells made since is in the tree). */
export async function showPanel(page: IJupyterLabPageFixture): Promise<void> {
  await page.sidebar.openTab('aistor-lab-panel');
  await expect(panel(page).locator('.jp-AIStorLab-dot.jp-mod-healthy')).toBeVisible();
  await panel(page).getByRole('button', { name: /^Refresh/ }).click();
  await expect(panel(page).locator('.jp-AIStorLab-busy')).toHaveCount(0);
}

export async function accept(page: IJupyterLabPageFixture): Promise<void> {
  await page.locator('.jp-Dialog .jp-mod-accept').click();
  await expect(page.locator('.jp-Dialog')).toHaveCount(0);
}

/** axe-core's serious and critical findings in the panel, as `rule: where` lines (none expected). */
export async function panelViolations(page: IJupyterLabPageFixture): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).include('#aistor-lab-panel').analyze();
  return violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .flatMap(v => v.nodes.map(node => `${v.id}: ${node.html} (${node.failureSummary})`));
}
