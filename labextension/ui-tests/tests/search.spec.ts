/**
 * The panel's search against a real service: a table two namespace levels down, never expanded in
 * the tree, is found by the server-side search and revealed (its ancestors opened, it selected);
 * a query matching nothing says so. The tree answers the keyboard as an ARIA tree does.
 */
import { expect, galata, test } from '@jupyterlab/galata';

import { details, panel, panelViolations, row, runCell, showPanel } from './lab';

const WAREHOUSE = 'uisearch';
const TABLE = `table:${WAREHOUSE}/lab.deep/needle_orders`;

test.use({ mockSettings: { ...galata.DEFAULT_SETTINGS } });

test('search: finds an unexpanded table and says when nothing matches', async ({ page }) => {
  const search = panel(page).getByRole('searchbox', { name: /^Search/ });

  await test.step('a cell makes a table two namespace levels down', async () => {
    await page.notebook.createNew('search.ipynb');
    const made = await runCell(
      page,
      0,
      [
        '%load_ext aistor_lab',
        `%aistor warehouse create ${WAREHOUSE}`,
        `%aistor namespace create ${WAREHOUSE} lab`,
        `%aistor namespace create ${WAREHOUSE} lab.deep`,
        `%aistor table create ${WAREHOUSE} lab.deep needle_orders --schema 'id long not null'`
      ].join('\n')
    );
    expect(made).toContain('needle_orders');
    await showPanel(page);
    await expect(row(page, `warehouse:${WAREHOUSE}`)).toHaveAttribute('aria-expanded', 'false');
    await expect(row(page, TABLE)).toHaveCount(0);
  });

  await test.step('the search finds it and choosing it reveals it in the tree', async () => {
    await search.fill('needle');
    const result = panel(page).locator('.jp-AIStorLab-result[data-kind="table"]', { hasText: 'needle_orders' });
    await expect(result).toContainText(`${WAREHOUSE} / lab.deep`);
    await expect(result).toContainText('table');
    expect(await panelViolations(page)).toEqual([]);
    await result.click();
    await expect(search).toHaveValue('');
    await expect(row(page, TABLE)).toHaveAttribute('aria-selected', 'true');
    await expect(row(page, TABLE)).toBeFocused();
    for (const id of [`warehouse:${WAREHOUSE}`, `namespace:${WAREHOUSE}/lab`, `namespace:${WAREHOUSE}/lab.deep`]) {
      await expect(row(page, id)).toHaveAttribute('aria-expanded', 'true');
    }
    await expect(details(page).locator('h2')).toContainText('needle_orders');
  });

  await test.step('a query that matches nothing says so', async () => {
    await search.fill('zzz-no-such-name');
    await expect(panel(page).locator('.jp-AIStorLab-search')).toContainText('Nothing matches “zzz-no-such-name”');
    await expect(panel(page).locator('.jp-AIStorLab-result')).toHaveCount(0);
    await search.press('Escape');
    await expect(row(page, TABLE)).toBeVisible();
  });
});

test('the tree takes the keyboard as an ARIA tree does', async ({ page }) => {
  await page.notebook.createNew('keys.ipynb');
  await showPanel(page);
  const warehouses = row(page, 'group:warehouses');
  const analytics = row(page, 'warehouse:analytics');
  await analytics.click();
  await expect(analytics).toBeFocused();
  await expect(panel(page).locator('.jp-AIStorLab-row[tabindex="0"]')).toHaveCount(1);
  await page.keyboard.press('ArrowLeft'); // a closed node: to its parent
  await expect(warehouses).toBeFocused();
  await page.keyboard.press('ArrowLeft'); // an open node: closes
  await expect(warehouses).toHaveAttribute('aria-expanded', 'false');
  await expect(analytics).toHaveCount(0);
  await page.keyboard.press('ArrowRight'); // opens again
  await expect(warehouses).toHaveAttribute('aria-expanded', 'true');
  await page.keyboard.press('ArrowRight'); // into its first child
  await expect(analytics).toBeFocused();
  await page.keyboard.press('End');
  await expect(panel(page).locator('.jp-AIStorLab-row').last()).toBeFocused();
  await page.keyboard.press('Home');
  await expect(warehouses).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(analytics).toBeFocused();
  await page.keyboard.press('Enter'); // selects, and opens what has children
  await expect(analytics).toHaveAttribute('aria-selected', 'true');
  await expect(analytics).toHaveAttribute('aria-expanded', 'true');
  await expect(panel(page).locator('.jp-AIStorLab-details h2')).toHaveText('analytics');
  expect(await panelViolations(page)).toEqual([]);
});
