/**
 * The panel's forms and tokens against a real service: names are checked as they are typed (the
 * problem under the field, OK disabled until it is fixed); a form whose command fails opens again
 * with what was typed and the service's error; a share's tokens show whether they are valid,
 * expiring soon or expired. Screenshots of the token dialog in the light and dark theme.
 */
import { expect, galata, IJupyterLabPageFixture, test } from '@jupyterlab/galata';

import { accept, details, expand, panel, panelViolations, row, runCell, showPanel } from './lab';

const WAREHOUSE = 'uiforms';
const SHARE = 'uiforms-share';
const dialog = (page: IJupyterLabPageFixture) => page.locator('.jp-Dialog');
const ok = (page: IJupyterLabPageFixture) => dialog(page).locator('.jp-mod-accept');
const problemOf = (page: IJupyterLabPageFixture, field: string) =>
  dialog(page).locator(`[name="${field}"] ~ .jp-AIStorLab-fieldError`);

test.use({ mockSettings: { ...galata.DEFAULT_SETTINGS } });

test('forms check names as typed and keep their input on error; tokens show their state', async ({ page }) => {
  await page.notebook.createNew('forms.ipynb');
  await showPanel(page);

  await test.step('a bad warehouse name is refused as it is typed', async () => {
    await panel(page).getByRole('button', { name: /^Create a warehouse/ }).click();
    const name = dialog(page).locator('input[name="name"]');
    await expect(ok(page)).toBeDisabled(); // empty
    await name.fill('Bad_Name');
    await expect(problemOf(page, 'name')).toContainText('lowercase letters, digits and hyphens');
    await expect(ok(page)).toBeDisabled();
    await name.fill(WAREHOUSE);
    await expect(problemOf(page, 'name')).toBeEmpty();
    await expect(ok(page)).toBeEnabled();
    await accept(page);
    await expect(row(page, `warehouse:${WAREHOUSE}`)).toBeVisible();
  });

  await test.step("a form the service refuses opens again with the input and the service's error", async () => {
    await panel(page).getByRole('button', { name: /^Create a warehouse/ }).click();
    await dialog(page).locator('input[name="name"]').fill(WAREHOUSE);
    await ok(page).click();
    await expect(problemOf(page, 'name')).toContainText('already exists');
    await expect(dialog(page).locator('input[name="name"]')).toHaveValue(WAREHOUSE);
    await dialog(page).locator('.jp-mod-reject').click();
    await expect(dialog(page)).toHaveCount(0);
  });

  await test.step('the namespace and table forms check their names and columns', async () => {
    await row(page, `warehouse:${WAREHOUSE}`).click({ button: 'right' });
    await page.locator('.lm-Menu-item', { hasText: 'New namespace…' }).click();
    await dialog(page).locator('input[name="name"]').fill('sales..eu');
    await expect(problemOf(page, 'name')).toContainText('empty level');
    await expect(ok(page)).toBeDisabled();
    await dialog(page).locator('input[name="name"]').fill('sales');
    await accept(page);

    await row(page, `namespace:${WAREHOUSE}/sales`).click({ button: 'right' });
    await page.locator('.lm-Menu-item', { hasText: 'New table…' }).click();
    await expect(ok(page)).toBeDisabled(); // no name yet
    await dialog(page).locator('input[name="table"]').fill('items');
    await dialog(page).locator('input[name="column"]').nth(1).fill('bad name');
    await expect(dialog(page).locator('.jp-AIStorLab-columns ~ .jp-AIStorLab-formError')).toContainText('bad name');
    await expect(ok(page)).toBeDisabled();
    await dialog(page).locator('input[name="column"]').nth(1).fill('label');
    await dialog(page).locator('input[name="partition"]').fill('no_such_column');
    await expect(ok(page)).toBeEnabled();
    await ok(page).click();
    // The service refuses the partition: the same form again, everything typed still there.
    await expect(dialog(page).locator('[role="alert"], .jp-AIStorLab-fieldError').filter({ hasText: /no_such_column/ })).toHaveCount(1);
    await expect(dialog(page).locator('input[name="table"]')).toHaveValue('items');
    await expect(dialog(page).locator('input[name="column"]').nth(1)).toHaveValue('label');
    await dialog(page).locator('input[name="partition"]').fill('id');
    await accept(page);
    await expect(row(page, `table:${WAREHOUSE}/sales/items`)).toBeVisible();
  });

  await test.step('tokens show whether they are valid, expiring soon or expired', async () => {
    const made = await runCell(
      page,
      0,
      [
        '%load_ext aistor_lab',
        `%aistor share create ${SHARE} sales items:uniform:${WAREHOUSE}:sales:items`,
        `%aistor share token create ${SHARE} --expires 30d --description lasting`,
        `%aistor share token create ${SHARE} --expires 1d --description soon`,
        `%aistor share token create ${SHARE} --expires 1s --description gone`,
        'import time; time.sleep(1.5); print("tokens made")'
      ].join('\n')
    );
    expect(made).toContain('tokens made');
    await showPanel(page);
    await expand(page, `share:${SHARE}`);
    await row(page, `share:${SHARE}`).click();
    const tokens = details(page).locator('[aria-label="Tokens"] li');
    await expect(tokens.filter({ hasText: 'lasting' }).locator('.jp-AIStorLab-tokenState')).toHaveText('valid');
    await expect(tokens.filter({ hasText: 'soon' }).locator('.jp-AIStorLab-tokenState')).toHaveText('expires soon');
    await expect(tokens.filter({ hasText: 'gone' }).locator('.jp-AIStorLab-tokenState')).toHaveText('expired');
    expect(await panelViolations(page)).toEqual([]);
  });

  await test.step('the token dialog in the light and dark theme', async () => {
    for (const theme of ['light', 'dark']) {
      if (theme === 'dark') {
        await page.theme.setDarkTheme();
        await page.sidebar.openTab('aistor-lab-panel');
        await row(page, `share:${SHARE}`).click();
      }
      await details(page).getByRole('button', { name: 'New token…' }).click();
      await dialog(page).locator('input[name="description"]').fill('for the finance team');
      await expect(dialog(page).locator('.jp-Dialog-content')).toHaveScreenshot(`token-dialog-${theme}.png`);
      await dialog(page).locator('.jp-mod-reject').click();
      await expect(dialog(page)).toHaveCount(0);
    }
    await page.theme.setLightTheme();
  });
});
