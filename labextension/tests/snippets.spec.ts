import { magicLine, shellWord, snippet, snippetKinds } from '../src/snippets';
import { ITreeNode } from '../src/treeModel';
import { namespaceContentNodes, shareContentNodes, warehouseNodes } from '../src/treeModel';

const [eu, orders] = namespaceContentNodes('analytics', 'sales', {
  namespaces: [['sales', 'eu']],
  tables: ['orders'],
  views: []
});
const [warehouse] = warehouseNodes(['analytics']);
const [schema] = shareContentNodes({
  name: 'sales-share',
  id: 's',
  created: '',
  updated: '',
  schemas: [{ name: 'sales', tables: [{ name: 'orders', id: 't', kind: 'delta', bucket: 'b', location: 'p' }] }]
});
const sharedOrders = schema.children![0];
const deltaFolder: ITreeNode = {
  id: 'prefix:lake/raw/people/',
  kind: 'prefix',
  label: 'people',
  bucket: 'lake',
  key: 'raw/people/',
  tableFormat: 'delta',
  children: null
};
const plainFolder: ITreeNode = { ...deltaFolder, id: 'prefix:lake/raw/', key: 'raw/', tableFormat: undefined };

describe('snippets', () => {
  it('offers the kinds that fit the node', () => {
    expect(snippetKinds(orders)).toEqual(['pyiceberg', 'duckdb', 'polars', 'daft', 'pandas', 'spark', 'magic']);
    expect(snippetKinds(warehouse)).toEqual(['pyiceberg', 'spark', 'magic']);
    expect(snippetKinds(sharedOrders)).toEqual(['delta-sharing', 'polars', 'spark', 'magic']);
    expect(snippetKinds(schema)).toEqual(['delta-sharing', 'magic']);
    expect(snippetKinds(deltaFolder)).toEqual(['duckdb', 'polars', 'daft', 'pandas']);
    expect(snippetKinds(plainFolder)).toEqual([]);
  });

  it('reads a table with PyIceberg from the kernel environment', () => {
    expect(snippet(orders, 'pyiceberg')).toBe(
      [
        'from aistor_lab.workbench.client import load_catalog',
        '',
        'catalog = load_catalog("analytics")',
        'table = catalog.load_table("sales.orders")',
        'df = table.scan(limit=100).to_pandas()',
        'df'
      ].join('\n')
    );
    expect(snippet(eu, 'pyiceberg')).toContain('catalog.list_tables("sales.eu")');
    expect(snippet(warehouse, 'pyiceberg')).toContain('catalog.list_namespaces()');
  });

  it('queries with Spark through the aistor catalog, quoting odd names', () => {
    expect(snippet(orders, 'spark')).toContain('spark = session("analytics")');
    expect(snippet(orders, 'spark')).toContain('SELECT * FROM aistor.sales.orders LIMIT 10');
    const [odd] = namespaceContentNodes('analytics', 'my-ns', { namespaces: [], tables: ['2024 data'], views: [] });
    expect(snippet(odd, 'spark')).toContain('aistor.`my-ns`.`2024 data`');
  });

  it('reads a table with DuckDB, Polars, Daft and pandas through the engines helpers', () => {
    expect(snippet(orders, 'duckdb')).toBe(
      [
        'from aistor_lab.workbench import engines',
        '',
        'con = engines.duckdb("analytics")  # attached as `lake`',
        'con.sql("SELECT * FROM lake.sales.orders LIMIT 100")'
      ].join('\n')
    );
    expect(snippet(orders, 'pandas')).toContain('df = con.sql("SELECT * FROM lake.sales.orders LIMIT 100").df()');
    expect(snippet(orders, 'polars')).toContain('lf = engines.polars_scan_iceberg("sales.orders", "analytics")');
    expect(snippet(orders, 'daft')).toContain('df = engines.daft_read_iceberg("sales.orders", "analytics")');
    const [nested] = namespaceContentNodes('analytics', 'sales.eu', { namespaces: [], tables: ['my-orders'], views: [] });
    expect(snippet(nested, 'duckdb')).toContain('FROM lake.\\"sales.eu\\".\\"my-orders\\" LIMIT 100');
  });

  it('reads a Delta table in a bucket with DuckDB, Polars, Daft and pandas', () => {
    expect(snippet(deltaFolder, 'duckdb')).toBe(
      [
        'from aistor_lab.workbench import engines',
        '',
        'con = engines.duckdb()',
        'con.sql("SELECT * FROM delta_scan(\'s3://lake/raw/people\') LIMIT 100")'
      ].join('\n')
    );
    expect(snippet(deltaFolder, 'polars')).toContain(
      'pl.scan_delta("s3://lake/raw/people", storage_options=engines.polars_storage_options())'
    );
    expect(snippet(deltaFolder, 'daft')).toContain(
      'daft.read_deltalake("s3://lake/raw/people", io_config=engines.daft_io_config())'
    );
    expect(snippet(deltaFolder, 'pandas')).toContain(".df()  # pandas");
  });

  it('loads a shared table with delta-sharing and the downloaded profile', () => {
    const code = snippet(sharedOrders, 'delta-sharing');
    expect(code).toContain('profile = "profile.share"');
    expect(code).toContain('delta_sharing.load_as_pandas(profile + "#sales-share.sales.orders", limit=100)');
    expect(snippet(sharedOrders, 'spark')).toContain('delta_sharing_table(spark, "profile.share#sales-share.sales.orders")');
    expect(snippet(sharedOrders, 'polars')).toContain(
      'engines.polars_shared_table("profile.share", "sales-share.sales.orders", limit=100)'
    );
  });

  it('writes %aistor lines as shlex reads them', () => {
    expect(magicLine(orders)).toBe('%aistor table info analytics sales orders');
    expect(magicLine(eu)).toBe('%aistor table list analytics sales.eu');
    expect(magicLine(schema)).toBe('%aistor share info sales-share');
    expect(shellWord("it's here")).toBe("'it'\\''s here'");
    expect(snippet(orders, 'magic').split('\n')[0]).toBe('%load_ext aistor_lab');
  });

  it('refuses a kind the node has no snippet of', () => {
    expect(() => snippet(warehouse, 'delta-sharing')).toThrow('no delta-sharing snippet for a warehouse');
  });
});
