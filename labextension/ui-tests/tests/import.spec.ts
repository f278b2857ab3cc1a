/**
 * A CSV becomes a table in the panel, as the newcomer's tutorial does it: the file dragged from
 * JupyterLab's file browser onto a bucket (the panel moved to the right sidebar so both show), then
 * "New table from this file…" on the uploaded object, which opens the new table in the explorer.
 */
import { expect, galata, IJupyterLabPageFixture, test } from '@jupyterlab/galata';

import { details, expand, panel, row, runCell, showPanel } from './lab';

const WAREHOUSE = 'uiimport';
const BUCKET = 'uilanding';

/** Presses on `from`, moves past Lumino's drag threshold in steps, and releases on `to`. */
async function dragBetween(page: IJupyterLabPageFixture, from: string, to: string): Promise<void> {
  const start = (await page.locator(from).boundingBox())!;
  const end = (await page.locator(to).boundingBox())!;
  await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
  await page.mouse.down();
  await page.mouse.move(start.x + start.width / 2 + 20, start.y + start.height / 2, { steps: 5 });
  await page.mouse.move(end.x + end.width / 2, end.y + end.height / 2, { steps: 20 });
  await page.mouse.up();
}

test.use({ mockSettings: { ...galata.DEFAULT_SETTINGS } });

test('a CSV dragged from the file browser onto a bucket becomes a table', async ({ page }) => {
  await test.step('a cell makes a warehouse, a bucket and a CSV beside the notebook', async () => {
    await page.notebook.createNew('import.ipynb');
    const made = await runCell(
      page,
      0,
      [
        '%load_ext aistor_lab',
        `%aistor warehouse create ${WAREHOUSE}`,
        `%aistor mb ${BUCKET}`,
        'with open("Cities List.csv", "w") as f:',
        '    f.write("city,people,founded\\nLyon,522000,-43\\nGhent,265000,630\\nPorto,232000,-300\\n")',
        'print("written")'
      ].join('\n')
    );
    expect(made).toContain('written');
  });

  await test.step('dragged from the file browser onto the bucket, it is uploaded there', async () => {
    await page.evaluate(() => {
      const shell = (window as any).jupyterapp.shell;
      const widget = [...shell.widgets('left')].find((w: any) => w.id === 'aistor-lab-panel');
      shell.add(widget, 'right');
      shell.activateById('aistor-lab-panel');
    });
    await showPanel(page);
    await page.sidebar.openTab('filebrowser');
    await page.filebrowser.refresh();
    await expect(page.locator('.jp-DirListing-item', { hasText: 'Cities List.csv' })).toBeVisible();
    await dragBetween(
      page,
      '.jp-DirListing-item:has-text("Cities List.csv")',
      `.jp-AIStorLab-row[data-id="bucket:${BUCKET}"]`
    );
    await expect(panel(page).locator('.jp-AIStorLab-upload[data-key="Cities List.csv"]')).toHaveClass(/jp-mod-done/);
    // The bucket opens on what was uploaded into it.
    await expect(row(page, `bucket:${BUCKET}`)).toHaveAttribute('aria-expanded', 'true');
    await expect(row(page, `object:${BUCKET}/Cities List.csv`)).toBeVisible();
  });

  await test.step('"New table from this file…" makes the table and opens it in the explorer', async () => {
    await row(page, `object:${BUCKET}/Cities List.csv`).click();
    await expect(details(page).locator('dd[data-fact="Type"]')).toContainText('text/csv');
    await row(page, `object:${BUCKET}/Cities List.csv`).click({ button: 'right' });
    await page.locator('.lm-Menu-item', { hasText: 'New table from this file…' }).click();
    const dialog = page.locator('.jp-Dialog');
    await expect(dialog.locator('select[name="warehouse"]')).toHaveValue('analytics'); // the default one
    await dialog.locator('select[name="warehouse"]').selectOption(WAREHOUSE);
    await expect(dialog.locator('input[name="table"]')).toHaveValue('cities_list');
    await dialog.locator('input[name="namespace"]').fill('geo');
    await dialog.locator('.jp-mod-accept').click();
    await expect(dialog).toHaveCount(0);
    const tab = page.locator(`[id="aistor-explorer:iceberg/${WAREHOUSE}/geo/cities_list"]`);
    await expect(tab).toBeVisible();
    await expect(tab).toContainText('3'); // the overview's row count
  });

  await test.step('the new namespace and table are in the tree', async () => {
    await expand(page, `namespace:${WAREHOUSE}/geo`);
    await expect(row(page, `table:${WAREHOUSE}/geo/cities_list`)).toBeVisible();
  });
});
