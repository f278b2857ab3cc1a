/**
 * The side panel against a real service: what the %aistor magics create appears in the tree, a
 * table's details show its rows, a share and a token are made in the panel (profile.share is
 * downloaded), a snippet goes into a notebook and runs, and removals ask before they change anything.
 */
import { expect, galata, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import * as fs from 'fs';

import { accept, panel, row, runCell } from './lab';

const WAREHOUSE = 'uiwh';

/** Opens or closes a row by its caret. */
async function open(page: IJupyterLabPageFixture, id: string): Promise<void> {
  await expect(row(page, id)).toBeVisible();
  await row(page, id).locator('.jp-AIStorLab-caret').click();
}

test.use({ mockSettings: { ...galata.DEFAULT_SETTINGS } });

test('the panel browses and acts on what the service holds', async ({ page }, testInfo) => {
  let snapshotId = '';
  await test.step('magics and PyIceberg make a warehouse, namespace and table with rows', async () => {
    await page.notebook.createNew('magics.ipynb');
    const made = await runCell(
      page,
      0,
      [
        '%load_ext aistor_lab',
        `%aistor warehouse create ${WAREHOUSE}`,
        `%aistor namespace create ${WAREHOUSE} sales`,
        `%aistor table create ${WAREHOUSE} sales orders --schema 'id long not null, customer string'`
      ].join('\n')
    );
    expect(made).toContain('orders');
    const inserted = await runCell(
      page,
      1,
      [
        'import pyarrow as pa',
        'from aistor_lab.workbench.client import load_catalog',
        `orders = load_catalog("${WAREHOUSE}").load_table("sales.orders")`,
        'rows = {"id": [1, 2, 3], "customer": ["ada", "bob", "cyd"]}',
        'orders.append(pa.table(rows, schema=orders.schema().as_arrow()))',
        'print("rows:", len(orders.scan().to_arrow()))',
        'print("snapshot:", orders.metadata.current_snapshot_id)'
      ].join('\n')
    );
    expect(inserted).toContain('rows: 3');
    snapshotId = /snapshot: (\d+)/.exec(inserted)![1];
  });

  await test.step('the tree shows them after a refresh', async () => {
    await page.sidebar.openTab('aistor-lab-panel');
    await expect(panel(page).locator('.jp-AIStorLab-dot.jp-mod-healthy')).toBeVisible();
    await panel(page).getByRole('button', { name: /^Refresh/ }).click();
    await open(page, `warehouse:${WAREHOUSE}`);
    await open(page, `namespace:${WAREHOUSE}/sales`);
    await expect(row(page, `table:${WAREHOUSE}/sales/orders`)).toBeVisible();
  });

  await test.step('the search finds a table and shows it in the tree', async () => {
    await panel(page).locator('.jp-AIStorLab-filter input').fill('orders');
    const result = panel(page)
      .locator('.jp-AIStorLab-result[data-kind="table"]', { hasText: 'orders' })
      .filter({ hasText: `${WAREHOUSE} / sales` });
    await result.click();
    await expect(row(page, `table:${WAREHOUSE}/sales/orders`)).toHaveAttribute('aria-selected', 'true');
    await expect(row(page, 'warehouse:analytics')).toBeVisible();
  });

  await test.step('a table is created from the schema form of the context menu', async () => {
    await row(page, `namespace:${WAREHOUSE}/sales`).click({ button: 'right' });
    await page.locator('.lm-Menu-item', { hasText: 'New table…' }).click();
    await page.locator('.jp-Dialog input[name="table"]').fill('items');
    await page.locator('.jp-Dialog input[name="column"]').nth(1).fill('label');
    await page.locator('.jp-Dialog input[name="partition"]').fill('id');
    await page.locator('.jp-Dialog-content').screenshot({ path: testInfo.outputPath('new-table-dialog.png') });
    await accept(page);
    await row(page, `table:${WAREHOUSE}/sales/items`).click();
    const details = panel(page).locator('.jp-AIStorLab-details');
    await expect(details.locator('table[aria-label="Schema"]')).toContainText('label');
    await expect(details.locator('table[aria-label="Partition spec"]')).toContainText('identity');
  });

  await test.step('a table shows its schema, snapshots and rows', async () => {
    await row(page, `table:${WAREHOUSE}/sales/orders`).click();
    const details = panel(page).locator('.jp-AIStorLab-details');
    await expect(details.locator('table[aria-label="Preview"]')).toContainText('ada');
    await expect(details.locator('table[aria-label="Schema"]')).toContainText('customer');
    await expect(details.locator('[aria-label="Snapshots"]')).toContainText('append');
    // The 64-bit id as PyIceberg has it, not rounded to a JavaScript number.
    await expect(details.locator('[aria-label="Snapshots"]')).toContainText(snapshotId);
    await panel(page).screenshot({ path: testInfo.outputPath('panel-light.png') });
  });

  await test.step('sharing the table makes a share; a token downloads profile.share', async () => {
    await panel(page).getByRole('button', { name: 'Share…' }).click();
    await page.locator('.jp-Dialog input[name="share"]').fill('ui-share');
    await accept(page);
    await expect(row(page, 'shared-table:ui-share/sales/orders')).toBeVisible();
    await row(page, 'share:ui-share').click();
    await expect(panel(page).locator('[aria-label="Shared tables"]')).toContainText('Iceberg');

    await panel(page).getByRole('button', { name: 'New token…' }).click();
    await page.locator('.jp-Dialog select[name="expires"]').selectOption('7d');
    await page.locator('.jp-Dialog input[name="description"]').fill('ui test');
    const downloading = page.waitForEvent('download');
    await page.locator('.jp-Dialog .jp-mod-accept').click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('profile.share');
    const saved = testInfo.outputPath('profile.share');
    await download.saveAs(saved);
    const profile = JSON.parse(fs.readFileSync(saved, 'utf-8'));
    expect(profile.shareCredentialsVersion).toBe(1);
    expect(profile.endpoint).toMatch(/\/delta-sharing\/?$/);
    expect(profile.bearerToken).toBeTruthy();
    await expect(page.locator('.jp-Dialog')).toContainText('Token created');
    await accept(page);
    await expect(panel(page).locator('[aria-label="Tokens"]')).toContainText('ui test');
    await panel(page).screenshot({ path: testInfo.outputPath('panel-share-light.png') });
  });

  await test.step('a PyIceberg snippet goes into the notebook and runs', async () => {
    await row(page, `table:${WAREHOUSE}/sales/orders`).click();
    await panel(page).locator('.jp-AIStorLab-snippet select').selectOption('pyiceberg');
    await panel(page).getByRole('button', { name: 'Insert into notebook' }).click();
    await expect.poll(() => page.notebook.getCellTextInput(2)).toContain('load_catalog');
    const source = await page.notebook.getCellTextInput(2);
    expect(source).toContain(`load_catalog("${WAREHOUSE}")`);
    expect(source).toContain('catalog.load_table("sales.orders")');
    await page.notebook.runCell(2);
    expect(((await page.notebook.getCellTextOutput(2)) ?? []).join('\n')).toContain('cyd');
  });

  await test.step('errors read in plain words', async () => {
    await panel(page).getByRole('button', { name: /^Create a warehouse/ }).click();
    await page.locator('.jp-Dialog input[name="name"]').fill(WAREHOUSE);
    await page.locator('.jp-Dialog .jp-mod-accept').click();
    // The form opens again with the error next to the name; the panel says it too.
    await expect(page.locator('.jp-Dialog .jp-AIStorLab-fieldError')).toContainText('already exists');
    await page.locator('.jp-Dialog .jp-mod-reject').click();
    await expect(panel(page).locator('.jp-AIStorLab-error[role="alert"]')).toContainText('already exists');
  });

  await test.step('the dark theme', async () => {
    await page.theme.setDarkTheme();
    await page.sidebar.openTab('aistor-lab-panel');
    await row(page, `table:${WAREHOUSE}/sales/orders`).click();
    await expect(panel(page).locator('table[aria-label="Preview"]')).toContainText('ada');
    await panel(page).screenshot({ path: testInfo.outputPath('panel-dark.png') });
  });

  await test.step('removing asks first, then the tree follows', async () => {
    await row(page, 'shared-table:ui-share/sales/orders').click({ button: 'right' });
    await page.locator('.lm-Menu-itemLabel', { hasText: 'Remove from share' }).click();
    await expect(page.locator('.jp-Dialog')).toContainText('Stop sharing sales.orders in ui-share?');
    await accept(page);
    await expect(row(page, 'shared-table:ui-share/sales/orders')).toHaveCount(0);

    await row(page, `table:${WAREHOUSE}/sales/items`).click();
    await panel(page).getByRole('button', { name: 'Delete table' }).click();
    await page.locator('.jp-Dialog .jp-mod-reject').click();
    await expect(row(page, `table:${WAREHOUSE}/sales/items`)).toBeVisible();
    await panel(page).getByRole('button', { name: 'Delete table' }).click();
    await accept(page);
    await expect(row(page, `table:${WAREHOUSE}/sales/items`)).toHaveCount(0);
    await expect(row(page, `table:${WAREHOUSE}/sales/orders`)).toBeVisible();
  });
});
