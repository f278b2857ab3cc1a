/**
 * Table maintenance in the explorer against a real service: a table of six small PyIceberg appends
 * shows its health (small files, snapshots, the size histogram); a preview says what would go and
 * changes nothing; Apply (after a confirmation, with a busy state while it runs) compacts and expires
 * the old snapshots, and the history has the run. Screenshots of the health in the light and dark
 * theme, and axe-core checks of the tab.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, galata, IJupyterLabPageFixture, test } from '@jupyterlab/galata';

import { accept, expand, row, runCell, showPanel } from './lab';

const WAREHOUSE = 'maintainwh';
const NS = 'shop';
const TABLE = 'clicks';
const explorer = (page: IJupyterLabPageFixture) => page.locator('.jp-AIStorExplorer:visible');
const tab = (page: IJupyterLabPageFixture, name: string) =>
  explorer(page).locator('.lm-TabBar-tab', { hasText: new RegExp(`^${name}$`) });
const health = (page: IJupyterLabPageFixture) => explorer(page).locator('dl[aria-label="Table health"]');
const fact = (page: IJupyterLabPageFixture, name: string) =>
  health(page).locator('dt', { hasText: new RegExp(`^${name}$`) }).locator('xpath=following-sibling::dd[1]');

/** Times, durations and file sizes differ from run to run: masked in screenshots. */
const volatile = (page: IJupyterLabPageFixture) => [
  explorer(page).locator('.jp-AIStorExplorer-time'),
  explorer(page).locator('.jp-AIStorExplorer-bytes'),
  explorer(page).locator('.jp-AIStorExplorer-shown')
];

async function noSeriousAxeViolations(page: IJupyterLabPageFixture): Promise<void> {
  const results = await new AxeBuilder({ page }).include('.jp-AIStorExplorer:not(.lm-mod-hidden)').analyze();
  const serious = results.violations.filter(v => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map(v => `${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

/** The table's snapshots and rows, as PyIceberg reads them now. */
async function tableState(page: IJupyterLabPageFixture, cell: number): Promise<string> {
  return runCell(
    page,
    cell,
    [
      `table = load_catalog("${WAREHOUSE}").load_table("${NS}.${TABLE}")`,
      'print("snapshots:", len(table.metadata.snapshots), "rows:", len(table.scan().to_arrow()))'
    ].join('\n')
  );
}

test.use({ mockSettings: { ...galata.DEFAULT_SETTINGS } });

test('the explorer shows a table’s health, previews maintenance, applies it and lists the run', async ({ page }, testInfo) => {
  await test.step('PyIceberg makes six small appends; snapshots older than now are due', async () => {
    await page.notebook.createNew('maintenance.ipynb');
    const made = await runCell(
      page,
      0,
      [
        '%load_ext aistor_lab',
        `%aistor warehouse create ${WAREHOUSE}`,
        `%aistor namespace create ${WAREHOUSE} ${NS}`,
        `%aistor table create ${WAREHOUSE} ${NS} ${TABLE} --schema 'id long not null, page string'`,
        `%aistor table maintenance set ${WAREHOUSE} ${NS} ${TABLE} -p history.expire.max-snapshot-age-ms=0`,
        'import pyarrow as pa',
        'from aistor_lab.workbench.client import load_catalog',
        `clicks = load_catalog("${WAREHOUSE}").load_table("${NS}.${TABLE}")`,
        'for batch in range(6):',
        '    ids = list(range(batch * 200, batch * 200 + 200))',
        '    clicks.append(pa.table({"id": ids, "page": [f"/p/{i}" for i in ids]}, schema=clicks.schema().as_arrow()))',
        'print("appended", len(clicks.metadata.snapshots))'
      ].join('\n')
    );
    expect(made).toContain('appended 6');
  });

  await test.step('the Maintenance tab shows the health: six small files, six snapshots', async () => {
    await showPanel(page);
    await expand(page, `warehouse:${WAREHOUSE}`);
    await expand(page, `namespace:${WAREHOUSE}/${NS}`);
    await row(page, `table:${WAREHOUSE}/${NS}/${TABLE}`).dblclick();
    await expect(explorer(page).locator('[aria-label="Table facts"]')).toContainText('Iceberg v');
    await page.sidebar.close();
    await tab(page, 'Maintenance').click();
    await expect(fact(page, 'Snapshots')).toHaveText('6');
    await expect(fact(page, 'Data files')).toContainText('6 (');
    await expect(fact(page, 'Small files')).toContainText('6 of 6 (100%), under');
    await expect(fact(page, 'Last maintenance')).toHaveText('never');
    const sizes = explorer(page).locator('table[aria-label="Data files by size"]');
    // The service's bins (health.py): a few KiB each, the six files are in one bin; one bar per bin.
    const bins = sizes.locator('tbody tr');
    await expect(bins.filter({ hasText: /KiB6$/ })).toHaveCount(1);
    await expect(bins.last()).toContainText(/^> \d+ MiB0$/);
    await expect(sizes.locator('svg rect')).toHaveCount(await bins.count());
    await expect(explorer(page).locator('table[aria-label="Maintenance runs, newest first"]')).toHaveCount(0);
    await expect(explorer(page).locator('section[aria-label="History"]')).toContainText('No maintenance has run');
    await expect(explorer(page)).toHaveScreenshot('maintenance-health-light.png', { mask: volatile(page), maxDiffPixelRatio: 0.002 });
    await noSeriousAxeViolations(page);
  });

  await test.step('the dark theme', async () => {
    await page.theme.setDarkTheme();
    await expect(explorer(page)).toHaveScreenshot('maintenance-health-dark.png', { mask: volatile(page), maxDiffPixelRatio: 0.002 });
    await noSeriousAxeViolations(page);
    await page.theme.setLightTheme();
  });

  await test.step('a preview says what would go, and changes nothing', async () => {
    await explorer(page).getByRole('button', { name: /^Preview maintenance/ }).click();
    const preview = explorer(page).locator('[role="group"][aria-label="Preview"]');
    await expect(preview).toContainText('Preview (nothing was changed)');
    await expect(preview.locator('tr', { hasText: 'compact' })).toContainText('Would rewrite 6 files');
    await expect(preview.locator('tr', { hasText: 'expire-snapshots' })).toContainText('Would remove 5 snapshots, would delete 5 files');
    await expect(explorer(page).getByRole('button', { name: 'Apply the previewed maintenance' })).toBeEnabled();
    await explorer(page).screenshot({ path: testInfo.outputPath('preview.png') });
    await noSeriousAxeViolations(page);
    await page.activity.activateTab('maintenance.ipynb');
    expect(await tableState(page, 1)).toContain('snapshots: 6 rows: 1200');
    await page.activity.activateTab(TABLE);
  });

  await test.step('Apply asks first, runs, and the health and history show the run', async () => {
    await explorer(page).getByRole('button', { name: 'Apply the previewed maintenance' }).click();
    await expect(page.locator('.jp-Dialog')).toContainText('It deletes 5 snapshots and 5 files for good.');
    // The run is held on its way to the server until the busy state has been seen.
    let release = () => {};
    const held = new Promise<void>(resolve => (release = resolve));
    const commands = (url: URL) => url.pathname.endsWith('/aistor-lab/api/commands');
    await page.route(commands, async route => {
      const argv: string[] = JSON.parse(route.request().postData() ?? '{}').argv ?? [];
      if (argv.includes('run') && !argv.includes('--dry-run')) {
        await held;
      }
      await route.continue();
    });
    await accept(page);
    const section = explorer(page).locator('.jp-AIStorExplorer-maintenance');
    await expect(section.locator('[role="status"]')).toContainText('Running maintenance');
    await expect(section).toHaveAttribute('aria-busy', 'true');
    await expect(explorer(page).getByRole('button', { name: /^Preview maintenance/ })).toHaveAttribute('aria-disabled', 'true');
    release();
    await page.unroute(commands);
    const result = explorer(page).locator('[role="group"][aria-label="Result"]');
    await expect(result).toContainText('Done: ');
    // Compaction ran first, so every older snapshot expired, and the files compaction rewrote went too.
    await expect(result.locator('tr', { hasText: 'compact' })).toContainText('Rewrote 6 files');
    await expect(result.locator('tr', { hasText: 'expire-snapshots' })).toContainText('Removed 6 snapshots, deleted');
    await expect(section.locator('[role="status"]')).toHaveCount(0);
    await expect(section).toHaveAttribute('aria-busy', 'false');
    await expect(fact(page, 'Snapshots')).toHaveText('1');
    await expect(fact(page, 'Last maintenance')).toContainText('(manual)');
    const runs = explorer(page).locator('table[aria-label="Maintenance runs, newest first"] tbody tr');
    await expect(runs).toHaveCount(1);
    await expect(runs.first()).toContainText('manual');
    await expect(runs.first()).toContainText('expire-snapshots');
    await expect(explorer(page).getByRole('button', { name: 'Apply the previewed maintenance' })).toBeDisabled();
    await explorer(page).screenshot({ path: testInfo.outputPath('applied.png') });
    await noSeriousAxeViolations(page);
    // The rows are all there; only the old snapshots went.
    await page.activity.activateTab('maintenance.ipynb');
    expect(await tableState(page, 2)).toContain('snapshots: 1 rows: 1200');
  });

  await test.step('the keyboard reaches the buttons and the settings', async () => {
    await page.activity.activateTab(TABLE);
    const previewButton = explorer(page).getByRole('button', { name: /^Preview maintenance/ });
    await previewButton.focus();
    await page.keyboard.press('Enter');
    await expect(explorer(page).locator('[role="group"][aria-label="Preview"]')).toContainText('Preview (nothing was changed)');
    await expect(previewButton).toBeFocused();
    // The settings are folded away; Enter on their summary opens them.
    const settings = explorer(page).locator('section[aria-label="Settings"]');
    await expect(settings.locator('table')).toBeHidden();
    await settings.locator('summary').focus();
    await page.keyboard.press('Enter');
    await expect(settings.locator('tr', { hasText: 'history.expire.max-snapshot-age-ms' })).toContainText('table');
    await expect(settings.locator('tr', { hasText: 'maintenance.compaction.enabled' })).toContainText('default');
    await expect(settings).toContainText(`%aistor table maintenance set ${WAREHOUSE} ${NS} ${TABLE} -p SETTING=VALUE`);
    await explorer(page).screenshot({ path: testInfo.outputPath('settings.png') });
    await noSeriousAxeViolations(page);
  });
});
