/**
 * The table explorer against a real service: a table made by PyIceberg opens from the panel in a
 * main-area tab; its grid pages through 260 rows as it scrolls, sorts and filters on the server
 * (a bad filter says why), shows an older snapshot's rows, inserts the exact time-travel cell into
 * a notebook that runs it; a view opens with its SQL. Screenshots in the light and dark theme, and
 * an axe-core check of the tab.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, galata, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Response } from '@playwright/test';

import { expand, row, runCell, showPanel } from './lab';

const WAREHOUSE = 'explorewh';
const NS = 'shop';
const explorer = (page: IJupyterLabPageFixture) => page.locator('.jp-AIStorExplorer:visible');
const tab = (page: IJupyterLabPageFixture, name: string) =>
  explorer(page).locator('.lm-TabBar-tab', { hasText: new RegExp(`^${name}$`) });

/** The next answer of the rows endpoint whose query has all of `params`. */
function rowsAnswer(page: IJupyterLabPageFixture, params: Record<string, string>): Promise<Response> {
  return page.waitForResponse(response => {
    const url = new URL(response.url());
    return (
      url.pathname.endsWith(`/tables/events/rows`) &&
      Object.entries(params).every(([key, value]) => url.searchParams.get(key) === value)
    );
  });
}

/** Times, ids and sizes differ from run to run: masked in screenshots. */
const volatile = (page: IJupyterLabPageFixture) => [
  explorer(page).locator('.jp-AIStorExplorer-time'),
  explorer(page).locator('.jp-AIStorExplorer-id'),
  explorer(page).locator('.jp-AIStorExplorer-shown'),
  explorer(page).locator('select[aria-label="Snapshot shown"]'),
  explorer(page).locator('tr', { hasText: 'total-files-size' })
];

async function noSeriousAxeViolations(page: IJupyterLabPageFixture): Promise<void> {
  const results = await new AxeBuilder({ page }).include('.jp-AIStorExplorer:not(.lm-mod-hidden)').analyze();
  const serious = results.violations.filter(v => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map(v => `${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

test.use({ mockSettings: { ...galata.DEFAULT_SETTINGS } });

test('the table explorer pages, sorts, filters and travels in time', async ({ page }, testInfo) => {
  let first = '';
  await test.step('PyIceberg writes 250 rows, then 10 more, and a view', async () => {
    await page.notebook.createNew('explorer.ipynb');
    const made = await runCell(
      page,
      0,
      [
        '%load_ext aistor_lab',
        `%aistor warehouse create ${WAREHOUSE}`,
        `%aistor namespace create ${WAREHOUSE} ${NS}`,
        `%aistor table create ${WAREHOUSE} ${NS} events --schema 'id long not null, name string'`
      ].join('\n')
    );
    expect(made).toContain('events');
    const written = await runCell(
      page,
      1,
      [
        'import pyarrow as pa',
        'from aistor_lab.workbench.client import AIStorClient, load_catalog',
        `events = load_catalog("${WAREHOUSE}").load_table("${NS}.events")`,
        'def rows(ids):',
        '    return pa.table({"id": ids, "name": [f"name-{i:03d}" for i in ids]}, schema=events.schema().as_arrow())',
        'events.append(rows(list(range(250))))',
        'print("first:", events.metadata.current_snapshot_id)',
        'events.manage_snapshots().create_tag(events.metadata.current_snapshot_id, "v1").commit()',
        'events.append(rows(list(range(250, 260))))',
        'print("rows:", len(events.scan().to_arrow()))',
        'schema = {"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "type": "long", "required": False}]}',
        'view = {"name": "recent", "schema": schema, "properties": {}, "view-version": {',
        '    "version-id": 1, "timestamp-ms": 1714560000000, "schema-id": 0, "summary": {"engine-name": "spark"},',
        `    "default-namespace": ["${NS}"],`,
        '    "representations": [{"type": "sql", "sql": "SELECT id FROM events WHERE id > 200", "dialect": "spark"}]}}',
        `AIStorClient.from_env().catalog_call("POST", "/${WAREHOUSE}/namespaces/${NS}/views", view)`,
        'print("view made")',
        'from pyiceberg.types import StringType',
        `evolving = load_catalog("${WAREHOUSE}").create_table("${NS}.evolving", schema=events.schema())`,
        'with evolving.update_schema() as update:',
        '    update.add_column("note", StringType(), doc="free text")',
        'with evolving.update_schema() as update:',
        '    update.rename_column("name", "label")'
      ].join('\n')
    );
    expect(written).toContain('rows: 260');
    expect(written).toContain('view made');
    first = /first: (\d+)/.exec(written)![1];
  });

  await test.step('a double-click on the table in the panel opens the explorer', async () => {
    await showPanel(page);
    await expand(page, `warehouse:${WAREHOUSE}`);
    await expand(page, `namespace:${WAREHOUSE}/${NS}`);
    const firstPage = rowsAnswer(page, { offset: '0' });
    await row(page, `table:${WAREHOUSE}/${NS}/events`).dblclick();
    await expect(explorer(page)).toBeVisible();
    await expect(explorer(page).locator('[aria-label="Table facts"]')).toContainText('Iceberg v');
    expect((await (await firstPage).json()).total).toBe(260);
    await page.sidebar.close();
    await explorer(page).screenshot({ path: testInfo.outputPath('overview.png') });
    await tab(page, 'Schema').click();
    await expect(explorer(page).locator('table[aria-label="Columns"]')).toContainText('required');
    await explorer(page).screenshot({ path: testInfo.outputPath('schema.png') });
  });

  await test.step('the grid fetches further pages as it scrolls', async () => {
    await tab(page, 'Data').click();
    await expect(explorer(page).locator('.jp-AIStorExplorer-status')).toContainText('260 rows');
    const grid = explorer(page).locator('[role="region"][aria-label="Rows"]');
    const later = rowsAnswer(page, { offset: '200' });
    await grid.hover();
    await page.mouse.wheel(0, 24 * 230);
    const answer = await (await later).json();
    // The last page: 60 rows (unsorted, they come in the data files' order).
    expect(answer.rows).toHaveLength(60);
    expect(answer.rows.every(([id, name]: [number, string]) => name === `name-${String(id).padStart(3, '0')}`)).toBe(true);
    // The keyboard reaches the grid.
    await grid.focus();
    await page.keyboard.press('ArrowDown');
    await expect(grid).toBeFocused();
  });

  await test.step('a header click sorts on the server: asc, desc, none', async () => {
    const grid = explorer(page).locator('[role="region"][aria-label="Rows"]');
    const box = (await grid.boundingBox())!;
    // The first column's header (past the 56-px row header, away from the column's edges).
    const header = { x: box.x + 56 + 40, y: box.y + 14 };
    const ascending = rowsAnswer(page, { offset: '0', sort: 'id:asc' });
    await page.mouse.click(header.x, header.y);
    expect((await (await ascending).json()).rows[0][0]).toBe(0);
    const descending = rowsAnswer(page, { offset: '0', sort: 'id:desc' });
    await page.mouse.click(header.x, header.y);
    expect((await (await descending).json()).rows[0][0]).toBe(259);
    await expect(explorer(page).locator('select[aria-label="Sort"]')).toHaveValue('id:desc');
    const unsorted = rowsAnswer(page, { offset: '0' });
    await page.mouse.click(header.x, header.y);
    expect(new URL((await unsorted).url()).searchParams.get('sort')).toBeNull();
  });

  await test.step('the filter goes to the server; a bad one says why', async () => {
    const filter = explorer(page).getByRole('textbox', { name: 'Filter rows' });
    const filtered = rowsAnswer(page, { filter: 'id >= 255' });
    await filter.fill('id >= 255');
    await filter.press('Enter');
    expect((await (await filtered).json()).rows.map((r: unknown[]) => r[0])).toEqual([255, 256, 257, 258, 259]);
    await expect(explorer(page).locator('.jp-AIStorExplorer-status')).toContainText('5 rows');
    await filter.fill('id >>> 3');
    await filter.press('Enter');
    await expect(explorer(page).locator('.jp-AIStorExplorer-dataBar [role="alert"]')).toBeVisible();
    const all = rowsAnswer(page, { offset: '0' });
    await filter.fill('');
    await filter.press('Enter');
    expect((await (await all).json()).total).toBe(260);
    await expect(explorer(page).locator('.jp-AIStorExplorer-dataBar [role="alert"]')).toHaveCount(0);
    await expect(explorer(page)).toHaveScreenshot('explorer-data-light.png', { mask: volatile(page), maxDiffPixelRatio: 0.002 });
  });

  await test.step('an older snapshot shows the older rows and its diff', async () => {
    await tab(page, 'Snapshots').click();
    const timeline = explorer(page).locator('[aria-label="Snapshots"]');
    await expect(timeline.locator('button')).toHaveCount(2);
    const older = rowsAnswer(page, { offset: '0', snapshot: first });
    await timeline.locator(`button[data-snapshot-id="${first}"]`).click();
    const answer = await (await older).json();
    // The 64-bit id went to the server and came back exactly.
    expect(answer.snapshotId).toBe(first);
    expect(answer.total).toBe(250);
    await expect(explorer(page).locator('[aria-label="Chosen snapshot"]')).toContainText(first);
    await expect(explorer(page).locator('table[aria-label="Changes against the parent snapshot"]')).toContainText('+250');
    await expect(explorer(page).locator('select[aria-label="Snapshot shown"]')).toHaveValue(`snapshot:${first}`);
    await expect(timeline.locator(`button[data-snapshot-id="${first}"]`)).toContainText('tag: v1');
    await expect(explorer(page)).toHaveScreenshot('explorer-snapshots-light.png', { mask: volatile(page), maxDiffPixelRatio: 0.002 });
    await noSeriousAxeViolations(page);
    // A tag picked in the header: the rows of the snapshot it names.
    const tagged = rowsAnswer(page, { offset: '0', ref: 'v1' });
    await explorer(page).locator('select[aria-label="Snapshot shown"]').selectOption('ref:v1');
    expect((await (await tagged).json()).snapshotId).toBe(first);
    await expect(timeline.locator('li.jp-mod-selected button')).toHaveAttribute('data-snapshot-id', first);
  });

  await test.step('the dark theme', async () => {
    await page.theme.setDarkTheme();
    await expect(explorer(page)).toHaveScreenshot('explorer-snapshots-dark.png', { mask: volatile(page), maxDiffPixelRatio: 0.002 });
    await tab(page, 'Data').click();
    await expect(explorer(page).locator('.jp-AIStorExplorer-status')).toContainText('250 rows');
    await expect(explorer(page)).toHaveScreenshot('explorer-data-dark.png', { mask: volatile(page), maxDiffPixelRatio: 0.002 });
    await noSeriousAxeViolations(page);
    await page.theme.setLightTheme();
    await tab(page, 'Snapshots').click();
  });

  await test.step('the time-travel cell goes into the notebook with the exact id and runs', async () => {
    await explorer(page).getByRole('button', { name: 'Insert PyIceberg cell' }).click();
    await expect.poll(() => page.notebook.getCellTextInput(2)).toContain(`snapshot_id=${first}`);
    await page.notebook.runCell(2);
    expect(((await page.notebook.getCellTextOutput(2)) ?? []).join('\n')).toContain('250 rows');
    await page.activity.activateTab('events');
    await explorer(page).getByRole('button', { name: 'Insert DuckDB cell' }).click();
    await expect.poll(() => page.notebook.getCellTextInput(3)).toContain(`snapshot_id=${first}`);
    await page.notebook.runCell(3);
    expect(((await page.notebook.getCellTextOutput(3)) ?? []).join('\n')).toContain('name-000');
  });

  await test.step('the profile is computed on demand', async () => {
    await page.activity.activateTab('events');
    await tab(page, 'Profile').click();
    await explorer(page).getByRole('button', { name: 'Compute the column profile' }).click();
    const profile = explorer(page).locator('table[aria-label="Column profile"]');
    await expect(profile).toContainText('name');
    await expect(profile.locator('tr', { hasText: 'id' }).first()).toContainText('249');
    await expect(profile.locator('svg[aria-label="Histogram of id"] rect').first()).toBeAttached();
    await explorer(page).screenshot({ path: testInfo.outputPath('profile.png') });
  });

  await test.step('a view opens with its SQL', async () => {
    await page.sidebar.openTab('aistor-lab-panel');
    await row(page, `view:${WAREHOUSE}/${NS}/recent`).click({ button: 'right' });
    await page.locator('.lm-Menu-itemLabel', { hasText: /^Open$/ }).click();
    await expect(explorer(page).locator('pre[aria-label="SQL in spark"]')).toContainText('SELECT id FROM events WHERE id > 200');
    await tab(page, 'Schema').click();
    await expect(explorer(page).locator('table[aria-label="Columns"]')).toContainText('long');
    await tab(page, 'Overview').click();
    await explorer(page).screenshot({ path: testInfo.outputPath('view.png') });
  });

  await test.step('the schema history says what changed', async () => {
    await showPanel(page);
    await row(page, `table:${WAREHOUSE}/${NS}/evolving`).click({ button: 'right' });
    await page.locator('.lm-Menu-itemLabel', { hasText: /^Open$/ }).click();
    await tab(page, 'Schema').click();
    await expect(explorer(page).locator('table[aria-label="Columns"]')).toContainText('free text');
    const history = explorer(page).locator('ol[aria-label="Schema history"]');
    await expect(history).toContainText('added note');
    await expect(history).toContainText('renamed label');
    await explorer(page).screenshot({ path: testInfo.outputPath('schema-history.png') });
    await noSeriousAxeViolations(page);
  });

  await test.step('the tabs come back with the layout', async () => {
    // Galata's readiness check waits for a Launcher, which a restored layout does not have.
    // (The view's tab, opened a moment ago, may not be in the saved layout yet: JupyterLab saves it
    // after a pause.)
    await page.reload({ waitForIsReady: false });
    await expect(page.locator(`[id="aistor-explorer:iceberg/${WAREHOUSE}/${NS}/events"]`)).toBeAttached();
    await page.activity.activateTab('events');
    await expect(explorer(page).locator('[aria-label="Table facts"]')).toContainText('260');
  });
});

test('the explorer shows a Delta table by version and a shared table as its recipient sees it', async ({ page }, testInfo) => {
  const BUCKET = 'explorelake';
  await test.step('deltalake writes two versions; a share offers the table', async () => {
    await page.notebook.createNew('explorer-delta.ipynb');
    const made = await runCell(
      page,
      0,
      [
        '%load_ext aistor_lab',
        `%aistor mb ${BUCKET}`,
        'import deltalake, pyarrow as pa',
        `uri = "s3://${BUCKET}/tables/people"`,
        'deltalake.write_deltalake(uri, pa.table({"id": [1, 2, 3], "name": ["ada", "bob", "cyd"]}))',
        'deltalake.write_deltalake(uri, pa.table({"id": [4, 5], "name": ["dee", "eve"]}), mode="append")',
        'print("version", deltalake.DeltaTable(uri).version())',
        `%aistor share create exploreshare lake people:delta:${BUCKET}:tables/people`
      ].join('\n')
    );
    expect(made).toContain('version 1');
  });

  await test.step('"Open as table" on the Delta folder shows its versions; an older one its rows', async () => {
    await showPanel(page);
    await expand(page, `bucket:${BUCKET}`);
    await expand(page, `prefix:${BUCKET}/tables/`);
    await row(page, `prefix:${BUCKET}/tables/people/`).click({ button: 'right' });
    const current = page.waitForResponse(r => r.url().includes('/delta/rows?') && !r.url().includes('version='));
    await page.locator('.lm-Menu-itemLabel', { hasText: 'Open as table' }).click();
    await expect(explorer(page).locator('[aria-label="Table facts"]')).toContainText('Delta Lake');
    expect((await (await current).json()).rows).toHaveLength(5);
    await tab(page, 'History').click();
    const versions = explorer(page).locator('[aria-label="Versions"] button');
    await expect(versions).toHaveCount(2);
    const older = page.waitForResponse(r => r.url().includes('/delta/rows?') && r.url().includes('version=0'));
    await versions.filter({ hasText: 'v0' }).click();
    const answer = await (await older).json();
    expect(answer.rows.map((r: unknown[]) => r[1]).sort()).toEqual(['ada', 'bob', 'cyd']);
    await expect(explorer(page).locator('[aria-label="Chosen version"]')).toContainText('Version 0');
    await explorer(page).screenshot({ path: testInfo.outputPath('delta-history.png') });
    await noSeriousAxeViolations(page);
  });

  await test.step('the deltalake cell reads that version', async () => {
    await explorer(page).getByRole('button', { name: 'Insert deltalake cell' }).click();
    await expect.poll(() => page.notebook.getCellTextInput(1)).toContain('version=0');
    await page.notebook.runCell(1);
    const output = ((await page.notebook.getCellTextOutput(1)) ?? []).join('\n');
    expect(output).toContain('cyd');
    expect(output).not.toContain('eve');
  });

  await test.step('the shared table opens as its recipient sees it', async () => {
    await showPanel(page);
    await expand(page, 'share:exploreshare');
    await expand(page, 'schema:exploreshare/lake');
    await row(page, 'shared-table:exploreshare/lake/people').click();
    await row(page, 'shared-table:exploreshare/lake/people').dblclick();
    await expect(explorer(page).locator('[aria-label="Shared table facts"]')).toContainText('exploreshare.lake.people');
    await expect(explorer(page).locator('table[aria-label="Shared schema"]')).toContainText('name');
    await tab(page, 'Preview').click();
    await expect(explorer(page).locator('.jp-AIStorExplorer-status')).toContainText('5 rows');
    await tab(page, 'Versions and audit').click();
    // Recipients may read both versions deltalake wrote: newest first.
    await expect(explorer(page).locator('table[aria-label="Shared versions"] tbody tr')).toHaveCount(2);
    await expect(explorer(page).locator('table[aria-label="Shared versions"] tbody tr').first()).toContainText('1');
    await expect(explorer(page).locator('section[aria-label="Audit"]')).toBeVisible();
    await explorer(page).screenshot({ path: testInfo.outputPath('shared-audit.png') });
    await noSeriousAxeViolations(page);
  });
});
