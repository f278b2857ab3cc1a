import { bytesText, fieldRows, timeText } from '../src/explorer/display';
import { histogramBars } from '../src/explorer/histogram';
import { PageCache } from '../src/explorer/paging';
import { rowsQuery } from '../src/explorer/query';
import { headerText, nextSort } from '../src/explorer/sort';
import { sourceId, sourcePath, sourceTitle, ExplorerSource } from '../src/explorer/source';
import { parentOf, summaryDiff } from '../src/explorer/summaryDiff';
import { deltaTimeTravel, icebergTimeTravel, travelLabel } from '../src/explorer/timeTravel';

// Beyond 2**53: Number() would round it to ...808.
const BIG_ID = '9007199254740993123';

const rowsOf = (from: number, count: number) => Array.from({ length: count }, (_, i) => [from + i]);

/** What the grid does when it paints rows `first..last`: each asks for its page, then the pages go. */
function paint(cache: PageCache, first: number, last: number): number[] {
  for (let row = first; row <= last; row++) {
    cache.want(row);
  }
  return cache.take(Infinity);
}

describe('the paging model', () => {
  it('asks for the pages a viewport covers, once', () => {
    const cache = new PageCache(100);
    expect(paint(cache, 0, 40)).toEqual([0]);
    expect(paint(cache, 150, 320)).toEqual([1, 2, 3]);
    // Being fetched: not asked for again.
    expect(paint(cache, 0, 399)).toEqual([]);
    expect(cache.want(120)).toBe(false);
  });

  it('fetches where a fast scroll stopped, not every page it passed', () => {
    const cache = new PageCache(100);
    for (const row of [0, 500, 1000, 1500, 2000, 2050]) {
      cache.want(row);
    }
    expect(cache.take(2)).toEqual([15, 20]);
    expect(cache.take(2)).toEqual([]);
  });

  it('keeps rows and counts them from the total, or grows a page past the last full one', () => {
    const cache = new PageCache(100);
    expect(cache.rowCount()).toBe(0);
    const generation = cache.generation;
    cache.want(0);
    cache.take(1);
    expect(cache.store(generation, 0, rowsOf(0, 100), null)).toBe(true);
    expect(cache.row(42)).toEqual([42]);
    expect(cache.row(142)).toBeUndefined();
    // Unknown total, a full page: one more page to scroll into.
    expect(cache.rowCount()).toBe(200);
    cache.store(generation, 1, rowsOf(100, 30), null);
    // A short page is the end.
    expect(cache.rowCount()).toBe(130);
    expect(cache.known).toBe(130);
    expect(paint(cache, 0, 500)).toEqual([]);
    expect(cache.want(131)).toBe(false);
  });

  it('takes the total when the server counts', () => {
    const cache = new PageCache(100);
    cache.store(cache.generation, 0, rowsOf(0, 100), 1234);
    expect(cache.rowCount()).toBe(1234);
    expect(cache.known).toBe(1234);
    expect(paint(cache, 1200, 1300)).toEqual([12]);
  });

  it('forgets everything on reset and drops answers to older requests', () => {
    const cache = new PageCache(100);
    const before = cache.generation;
    cache.want(0);
    cache.take(1);
    cache.reset();
    expect(cache.store(before, 0, rowsOf(0, 100), 100)).toBe(false);
    expect(cache.row(0)).toBeUndefined();
    expect(cache.known).toBeNull();
    expect(paint(cache, 0, 10)).toEqual([0]);
  });

  it('lets a failed page be asked for again', () => {
    const cache = new PageCache(100);
    cache.want(5);
    cache.take(1);
    cache.failed(cache.generation, 0);
    expect(cache.want(5)).toBe(true);
  });
});

describe('sorting', () => {
  it('cycles a column asc, desc, none; another column starts at asc', () => {
    const asc = nextSort(null, 'id');
    expect(asc).toEqual({ column: 'id', direction: 'asc' });
    const desc = nextSort(asc, 'id');
    expect(desc).toEqual({ column: 'id', direction: 'desc' });
    expect(nextSort(desc, 'id')).toBeNull();
    expect(nextSort(desc, 'name')).toEqual({ column: 'name', direction: 'asc' });
  });

  it('marks the sorted header', () => {
    expect(headerText('id', { column: 'id', direction: 'asc' })).toBe('id ▲');
    expect(headerText('id', { column: 'id', direction: 'desc' })).toBe('id ▼');
    expect(headerText('name', { column: 'id', direction: 'desc' })).toBe('name');
  });

  it('goes to the server with the page, snapshot and filter', () => {
    const query = new URLSearchParams(
      rowsQuery({ snapshot: BIG_ID, sort: { column: 'id', direction: 'desc' }, filter: " name = 'x' " }, 200, 100)
    );
    expect(Object.fromEntries(query)).toEqual({
      offset: '200',
      limit: '100',
      snapshot: BIG_ID,
      sort: 'id:desc',
      filter: "name = 'x'"
    });
    expect(rowsQuery({ ref: 'audit', sort: null, filter: '' }, 0, 100)).toBe('offset=0&limit=100&ref=audit');
    expect(rowsQuery({ snapshot: '3', sort: null, filter: '' }, 0, 100, 'version')).toBe('offset=0&limit=100&version=3');
  });
});

describe('sources', () => {
  const sources: ExplorerSource[] = [
    { kind: 'iceberg', warehouse: 'wh', namespace: 'sales.eu', table: 'orders' },
    { kind: 'view', warehouse: 'wh', namespace: 'sales', view: 'big orders' },
    { kind: 'delta', bucket: 'lake', path: 'events/2026/' },
    { kind: 'shared', share: 's', schema: 'sales', table: 'orders' }
  ];

  it('have one stable id each', () => {
    const ids = sources.map(sourceId);
    expect(new Set(ids).size).toBe(sources.length);
    expect(sourceId({ kind: 'iceberg', warehouse: 'wh', namespace: 'sales.eu', table: 'orders' })).toBe(ids[0]);
    // A "/" inside a part cannot make two sources one.
    expect(sourceId({ kind: 'delta', bucket: 'a', path: 'b/c' })).not.toBe(sourceId({ kind: 'delta', bucket: 'a/b', path: 'c' }));
    expect(ids[2]).toBe('aistor-explorer:delta/lake/events%2F2026%2F');
  });

  it('are titled by their name and described by their path', () => {
    expect(sources.map(sourceTitle)).toEqual(['orders', 'big orders', '2026', 'orders']);
    expect(sourcePath(sources[2])).toBe('s3://lake/events/2026/ (Delta)');
  });
});

describe('snapshots', () => {
  const first = { 'snapshot-id': BIG_ID, 'timestamp-ms': 1, summary: { 'total-records': '3', 'total-data-files': '1' } };
  const second = {
    'snapshot-id': '9007199254740993999',
    'parent-snapshot-id': BIG_ID,
    'timestamp-ms': 2,
    summary: { 'total-records': '12345678901234567890', 'total-data-files': '1', 'total-delete-files': '2' }
  };

  it('keep 64-bit ids as strings when finding a parent', () => {
    expect(parentOf(second, [first, second])).toBe(first);
    expect(parentOf(first, [first, second])).toBeNull();
  });

  it('diff their totals exactly against the parent', () => {
    expect(summaryDiff(second, first)).toEqual([
      { key: 'total-records', before: '3', after: '12345678901234567890', change: '+12345678901234567887' },
      { key: 'total-data-files', before: '1', after: '1', change: '0' },
      { key: 'total-delete-files', before: null, after: '2', change: null }
    ]);
    // The first snapshot counts from nothing.
    expect(summaryDiff(first, null)[0]).toEqual({ key: 'total-records', before: null, after: '3', change: '+3' });
  });
});

describe('time-travel snippets', () => {
  const table = { warehouse: 'wh', namespace: 'sales', table: 'orders' };

  it('carry the snapshot id exactly as given', () => {
    expect(icebergTimeTravel(table, BIG_ID, 'python')).toBe(
      [
        'from aistor_lab.workbench.client import load_catalog',
        '',
        'table = load_catalog("wh").load_table("sales.orders")',
        `df = table.scan(snapshot_id=${BIG_ID}).to_pandas()`,
        'df'
      ].join('\n')
    );
    expect(icebergTimeTravel(table, BIG_ID, 'spark')).toBe(
      [
        'from aistor_lab.workbench.spark import session',
        '',
        'spark = session("wh")',
        `spark.sql("SELECT * FROM aistor.sales.orders VERSION AS OF ${BIG_ID}").show()`
      ].join('\n')
    );
    expect(icebergTimeTravel(table, BIG_ID, 'duckdb')).toContain(
      `con = table.scan(snapshot_id=${BIG_ID}).to_duckdb(table_name="snapshot")`
    );
  });

  it('quote odd names and refuse an id that is not a number', () => {
    const odd = { warehouse: 'wh', namespace: 'a.b-c', table: 'my table' };
    expect(icebergTimeTravel(odd, '1', 'spark')).toContain('SELECT * FROM aistor.a.`b-c`.`my table` VERSION AS OF 1');
    expect(() => icebergTimeTravel(table, '1; drop', 'python')).toThrow('not a snapshot id');
  });

  it('read a Delta table at a version', () => {
    const delta = { bucket: 'lake', path: '/events/' };
    expect(deltaTimeTravel(delta, 3, 'python')).toContain(
      'table = DeltaTable("s3://lake/events", version=3, storage_options=delta_storage_options(ServiceConfig.from_env()))'
    );
    expect(deltaTimeTravel(delta, 3, 'spark')).toContain('delta_table(spark, "s3://lake/events", version=3).show()');
    expect(deltaTimeTravel(delta, 3, 'duckdb')).toContain('duckdb.sql("SELECT * FROM snapshot LIMIT 100")');
    expect(travelLabel('delta', 'python')).toBe('deltalake');
    expect(travelLabel('iceberg', 'python')).toBe('PyIceberg');
  });
});

describe('the profile histogram', () => {
  it('scales bars to the tallest and keeps small bins visible', () => {
    const bars = histogramBars({ kind: 'numeric', edges: [0, 10, 20, 30], counts: [100, 0, 1] }, 60, 20);
    expect(bars.map(bar => [bar.x, bar.width, bar.height, bar.y])).toEqual([
      [0, 19, 20, 0],
      [20, 19, 0, 20],
      [40, 19, 1, 19]
    ]);
    expect(bars[0].label).toBe('0 – 10: 100');
  });

  it('draws one bar per frequent value', () => {
    const bars = histogramBars({ kind: 'values', values: [{ value: 'a', count: 2 }, { value: null, count: 4 }] }, 10, 8);
    expect(bars.map(bar => bar.height)).toEqual([4, 8]);
    expect(bars[1].label).toBe('null: 4');
    expect(histogramBars({ kind: 'values', values: [] }, 10, 8)).toEqual([]);
  });
});

describe('the schema and facts', () => {
  it('list nested fields with their ids and depth', () => {
    const rows = fieldRows([
      { id: 1, name: 'id', type: 'long', required: true },
      {
        id: 2,
        name: 'tags',
        type: { type: 'list', 'element-id': 3, element: { type: 'struct', fields: [{ id: 4, name: 'k', type: 'string', required: false }] }, 'element-required': true },
        required: false,
        doc: 'labels'
      },
      { id: 5, name: 'attrs', type: { type: 'map', 'key-id': 6, key: 'string', 'value-id': 7, value: 'int', 'value-required': false }, required: false }
    ]);
    expect(rows.map(r => [r.id, r.path, r.depth, r.required])).toEqual([
      [1, 'id', 0, true],
      [2, 'tags', 0, false],
      [3, 'tags.element', 1, true],
      [4, 'tags.element.k', 2, false],
      [5, 'attrs', 0, false],
      [6, 'attrs.key', 1, true],
      [7, 'attrs.value', 1, false]
    ]);
    expect(rows[1].doc).toBe('labels');
    expect(rows[1].type).toBe('list<struct<k: string>>');
  });

  it('write sizes and times the same on every machine', () => {
    expect(bytesText(512)).toBe('512 B');
    expect(bytesText(3 * 1024 * 1024)).toBe('3.0 MiB');
    expect(bytesText(null)).toBe('unknown');
    expect(timeText(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe('2026-01-02 03:04:05 UTC');
    expect(timeText('2026-01-02T03:04:05.123Z')).toBe('2026-01-02 03:04:05 UTC');
  });
});
