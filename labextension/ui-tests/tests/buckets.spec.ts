/**
 * Buckets in the panel against a real service: a bucket with a Delta table written by deltalake
 * in a cell, browsed like a file browser (the table's folder badged, a long folder a page at a
 * time, "Open as table" opening the explorer's tab, "Share…" starting a share of it); files
 * uploaded by the file picker (a CSV and a multi-MB file) and by dropping them, with progress; an
 * object's details and s3:// path; a download whose bytes are the upload's; deletes after a
 * question saying how much goes. Screenshots of the panel and the bucket browser in the light and
 * dark theme, and an axe-core check of the panel.
 */
import { expect, galata, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import * as crypto from 'crypto';
import * as fs from 'fs';

import { accept, details, expand, panel, panelViolations, row, runCell, showPanel } from './lab';

const BUCKET = 'uibrowse';
const CSV = Buffer.from('city,people\nLyon,522000\nGhent,265000\n');
const BIG = crypto.randomBytes(12 * 1024 * 1024 + 123);

/** Sizes, times, ETags and the service's address differ from run to run: masked. */
const volatile = (page: IJupyterLabPageFixture) => [
  panel(page).locator('.jp-AIStorLab-status'),
  panel(page).locator('.jp-AIStorLab-uploads small'),
  details(page).locator('dd')
];

/** Drops files on an element as the desktop would: a drop event carrying a DataTransfer of them
 * (a file of `size` zero bytes, or of `text`). */
async function dropFiles(
  page: IJupyterLabPageFixture,
  selector: string,
  files: { name: string; text?: string; size?: number }[]
) {
  await page.evaluate(
    ([target, dropped]) => {
      const transfer = new DataTransfer();
      for (const file of dropped) {
        const body = file.size ? new Uint8Array(file.size) : file.text!;
        transfer.items.add(new File([body], file.name, { type: file.size ? 'application/octet-stream' : 'text/csv' }));
      }
      const element = document.querySelector(target)!;
      for (const type of ['dragenter', 'dragover', 'drop']) {
        element.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }
    },
    [selector, files] as const
  );
}

/** Chooses files in the picker the "Upload…" button opens. */
async function uploadByPicker(page: IJupyterLabPageFixture, files: { name: string; mimeType: string; buffer: Buffer }[]) {
  const choosing = page.waitForEvent('filechooser');
  await details(page).getByRole('button', { name: 'Upload…' }).click();
  await (await choosing).setFiles(files);
}

const upload = (page: IJupyterLabPageFixture, key: string) => panel(page).locator(`.jp-AIStorLab-upload[data-key="${key}"]`);

test.use({ mockSettings: { ...galata.DEFAULT_SETTINGS } });

test('buckets: browse, upload, download, delete and open a Delta table', async ({ page }) => {
  await test.step('a cell makes a bucket with a Delta table and a few scratch files', async () => {
    await page.notebook.createNew('buckets.ipynb');
    const made = await runCell(
      page,
      0,
      [
        '%load_ext aistor_lab',
        `%aistor mb ${BUCKET}`,
        'import boto3, deltalake, pyarrow as pa',
        `deltalake.write_deltalake("s3://${BUCKET}/tables/people", pa.table({"id": [1, 2], "name": ["ada", "bob"]}))`,
        's3 = boto3.client("s3")',
        'for name in ("a.txt", "b.txt", "deeper/c.txt"):',
        `    s3.put_object(Bucket="${BUCKET}", Key=f"scratch/{name}", Body=b"x")`,
        'for i in range(201):  # one more than a page of the panel',
        `    s3.put_object(Bucket="${BUCKET}", Key=f"many/{i:03}.txt", Body=b"")`,
        'print("made", deltalake.DeltaTable(f"s3://' + BUCKET + '/tables/people").version())'
      ].join('\n')
    );
    expect(made).toContain('made 0');
  });

  await test.step('the bucket browses like a file browser; the Delta folder is badged', async () => {
    await showPanel(page);
    await expand(page, `bucket:${BUCKET}`);
    await expect(row(page, `prefix:${BUCKET}/scratch/`)).toBeVisible();
    await expand(page, `prefix:${BUCKET}/tables/`);
    await expect(row(page, `prefix:${BUCKET}/tables/people/`).locator('.jp-AIStorLab-badge')).toHaveText('Delta');
  });

  await test.step('a long folder lists a page at a time: "Load more…" brings the rest', async () => {
    await expand(page, `prefix:${BUCKET}/many/`);
    await expect(row(page, `object:${BUCKET}/many/199.txt`)).toBeVisible();
    await expect(row(page, `object:${BUCKET}/many/200.txt`)).toHaveCount(0);
    await row(page, `more:${BUCKET}/many/`).click();
    await expect(row(page, `object:${BUCKET}/many/200.txt`)).toBeVisible();
    await expect(row(page, `more:${BUCKET}/many/`)).toHaveCount(0);
    await expect(panel(page).locator(`.jp-AIStorLab-row[data-id^="object:${BUCKET}/many/"]`)).toHaveCount(201);
    await row(page, `prefix:${BUCKET}/many/`).locator('.jp-AIStorLab-caret').click();
  });

  await test.step('a CSV and a 12 MiB file uploaded with the file picker, with progress', async () => {
    await row(page, `bucket:${BUCKET}`).click();
    await uploadByPicker(page, [
      { name: 'cities.csv', mimeType: 'text/csv', buffer: CSV },
      { name: 'big.bin', mimeType: 'application/octet-stream', buffer: BIG }
    ]);
    for (const key of ['cities.csv', 'big.bin']) {
      await expect(upload(page, key)).toHaveClass(/jp-mod-done/);
      await expect(row(page, `object:${BUCKET}/${key}`)).toBeVisible();
    }
    await expect(upload(page, 'big.bin')).toContainText('uploaded · 12 MiB');
    const bar = upload(page, 'big.bin').locator('progress');
    expect(await bar.getAttribute('value')).toBe(String(BIG.length));
    expect(await bar.getAttribute('max')).toBe(String(BIG.length));
  });

  await test.step('files dropped on a folder row are uploaded into it: a CSV and a 9 MiB file', async () => {
    await dropFiles(page, `.jp-AIStorLab-row[data-id="prefix:${BUCKET}/tables/"]`, [
      { name: 'dropped.csv', text: 'a,b\n1,2\n' },
      { name: 'dropped.bin', size: 9 * 1024 * 1024 }
    ]);
    await expect(upload(page, 'tables/dropped.csv')).toHaveClass(/jp-mod-done/);
    await expect(upload(page, 'tables/dropped.bin')).toHaveClass(/jp-mod-done/);
    await expect(upload(page, 'tables/dropped.bin')).toContainText('uploaded · 9.0 MiB');
    await expect(row(page, `object:${BUCKET}/tables/dropped.csv`)).toBeVisible();
    await expect(row(page, `object:${BUCKET}/tables/dropped.bin`)).toBeVisible();
  });

  await test.step("an object's details; its download has the uploaded bytes", async () => {
    await row(page, `object:${BUCKET}/big.bin`).click();
    await expect(details(page).locator('h2')).toHaveText(`s3://${BUCKET}/big.bin`);
    await expect(details(page).locator('dd[data-fact="Size"]')).toContainText(`${BIG.length.toLocaleString('en')} bytes`);
    await expect(details(page).locator('dd[data-fact="ETag"]')).not.toBeEmpty();
    await expect(details(page).locator('dd[data-fact="Last modified"]')).toContainText('T');
    const downloading = page.waitForEvent('download');
    await details(page).getByRole('button', { name: 'Download' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('big.bin');
    await details(page).getByRole('button', { name: 'Copy s3:// path' }).click();
    await expect(page.locator('.Toastify__toast', { hasText: `Copied s3://${BUCKET}/big.bin` })).toBeVisible();
    const saved = await download.path();
    expect(crypto.createHash('sha256').update(fs.readFileSync(saved!)).digest('hex')).toBe(
      crypto.createHash('sha256').update(BIG).digest('hex')
    );
  });

  await test.step('the panel and the bucket browser look right in the light theme; axe finds nothing serious', async () => {
    await row(page, `object:${BUCKET}/cities.csv`).click();
    await expect(details(page).locator('dd[data-fact="Size"]')).toContainText(`(${CSV.length} bytes)`);
    await expect(panel(page)).toHaveScreenshot('buckets-light.png', { mask: volatile(page) });
    expect(await panelViolations(page)).toEqual([]);
  });

  await test.step('and in the dark theme', async () => {
    await page.theme.setDarkTheme();
    await page.sidebar.openTab('aistor-lab-panel');
    await row(page, `object:${BUCKET}/cities.csv`).click();
    await expect(details(page).locator('dd[data-fact="Size"]')).toContainText(`(${CSV.length} bytes)`);
    await expect(panel(page)).toHaveScreenshot('buckets-dark.png', { mask: volatile(page) });
    expect(await panelViolations(page)).toEqual([]);
    await page.theme.setLightTheme();
  });

  await test.step('"Open as table" on the Delta folder opens the explorer', async () => {
    await page.sidebar.openTab('aistor-lab-panel');
    await row(page, `prefix:${BUCKET}/tables/people/`).click({ button: 'right' });
    await page.locator('.lm-Menu-item', { hasText: 'Open as table' }).click();
    await expect(page.locator(`[id="aistor-explorer:delta/${BUCKET}/tables%2Fpeople"]`)).toBeVisible();
  });

  await test.step('"Share…" on the Delta folder starts a share of it', async () => {
    await page.sidebar.openTab('aistor-lab-panel');
    await row(page, `prefix:${BUCKET}/tables/people/`).click({ button: 'right' });
    await page.locator('.lm-Menu-item', { hasText: 'Share…' }).click();
    await expect(page.locator('.jp-Dialog input[name="table"]')).toHaveValue(`people:delta:${BUCKET}:tables/people`);
    await page.locator('.jp-Dialog input[name="share"]').fill('uibrowse-share');
    await page.locator('.jp-Dialog input[name="schema"]').fill('hr');
    await accept(page);
    await row(page, 'share:uibrowse-share').click();
    await expect(details(page).locator('[aria-label="Shared tables"]')).toContainText(`s3://${BUCKET}/tables/people`);
  });

  await test.step("files dropped on a folder's details are uploaded into it", async () => {
    await page.sidebar.openTab('aistor-lab-panel');
    await row(page, `prefix:${BUCKET}/scratch/`).click();
    await dropFiles(page, '#aistor-lab-panel .jp-AIStorLab-details', [{ name: 'late.csv', text: 'x\n1\n' }]);
    await expect(upload(page, 'scratch/late.csv')).toHaveClass(/jp-mod-done/);
    await expect(row(page, `object:${BUCKET}/scratch/late.csv`)).toBeVisible();
  });

  await test.step('deleting asks first: an object, then a folder with how many objects go', async () => {
    await page.sidebar.openTab('aistor-lab-panel');
    await row(page, `object:${BUCKET}/cities.csv`).click();
    await details(page).getByRole('button', { name: 'Delete…' }).click();
    await expect(page.locator('.jp-Dialog')).toContainText(`Delete s3://${BUCKET}/cities.csv?`);
    await page.locator('.jp-Dialog .jp-mod-reject').click();
    await expect(row(page, `object:${BUCKET}/cities.csv`)).toBeVisible();
    await details(page).getByRole('button', { name: 'Delete…' }).click();
    await accept(page);
    await expect(row(page, `object:${BUCKET}/cities.csv`)).toHaveCount(0);

    await row(page, `prefix:${BUCKET}/scratch/`).click();
    await details(page).getByRole('button', { name: 'Delete…' }).click();
    await expect(page.locator('.jp-Dialog')).toContainText(`Delete 4 objects under s3://${BUCKET}/scratch/?`);
    await accept(page);
    await expect(row(page, `prefix:${BUCKET}/scratch/`)).toHaveCount(0);
    await expect(row(page, `prefix:${BUCKET}/tables/`)).toBeVisible();
  });
});
