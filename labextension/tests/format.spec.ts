import { columnsProblem, columnsSpec } from '../src/schemaForm';
import { cellText, newestFirst, shortTime, snapshotTime, summaryDetail, summaryText, typeText } from '../src/format';

describe('table details formatting', () => {
  it('writes nested Iceberg types briefly', () => {
    expect(typeText('long')).toBe('long');
    expect(typeText({ type: 'list', element: 'string', 'element-id': 3 })).toBe('list<string>');
    expect(typeText({ type: 'map', key: 'string', value: { type: 'list', element: 'int' } })).toBe(
      'map<string, list<int>>'
    );
    expect(typeText({ type: 'struct', fields: [{ name: 'a', type: 'int' }] })).toBe('struct<a: int>');
  });

  it('shows snapshots newest first with UTC times and the record counts first', () => {
    const older = { 'snapshot-id': '8004521752309098123', 'timestamp-ms': Date.UTC(2026, 0, 2, 3, 4, 5), summary: { operation: 'append', 'total-records': '3', 'added-records': '3', 'added-data-files': '1', 'total-files-size': '972' } };
    const newer = { 'snapshot-id': '2', 'timestamp-ms': older['timestamp-ms'] + 1000 };
    expect(newestFirst([older, newer]).map(s => s['snapshot-id'])).toEqual(['2', '8004521752309098123']);
    expect(snapshotTime(older)).toBe('2026-01-02 03:04:05 UTC');
    expect(summaryText(older)).toBe('added-records=3, total-records=3, added-data-files=1');
    expect(summaryText(newer)).toBe('');
    expect(summaryDetail(older).split('\n')).toContain('total-files-size: 972');
  });

  it('shows token times to the minute', () => {
    expect(shortTime('2026-11-29T12:16:58.404Z')).toBe('2026-11-29 12:16 UTC');
    expect(shortTime('not a time')).toBe('not a time');
  });

  it('shows nulls and nested values in the preview', () => {
    expect(cellText(null)).toBe('∅');
    expect(cellText({ a: 1 })).toBe('{"a":1}');
    expect(cellText(3)).toBe('3');
  });
});

describe('the new table form', () => {
  it('writes the column list table create takes', () => {
    expect(
      columnsSpec([
        { name: ' id ', type: 'long', required: true },
        { name: '', type: 'string', required: false },
        { name: 'total', type: 'decimal(10, 2)', required: false }
      ])
    ).toBe('id long not null, total decimal(10, 2)');
  });

  it('explains what is wrong with the columns', () => {
    expect(columnsProblem([{ name: '', type: 'long', required: false }])).toBe('Add at least one column with a name.');
    expect(columnsProblem([{ name: 'my col', type: 'long', required: false }])).toMatch(/letters, digits and _/);
    expect(
      columnsProblem([
        { name: 'id', type: 'long', required: false },
        { name: 'ID', type: 'int', required: false }
      ])
    ).toBe('The column "ID" is there twice.');
    expect(columnsProblem([{ name: 'id', type: 'long', required: true }])).toBeNull();
  });
});
