import { magicLine, shellWord, snippet, snippetKinds } from '../src/snippets';
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

describe('snippets', () => {
  it('offers the kinds that fit the node', () => {
    expect(snippetKinds(orders)).toEqual(['pyiceberg', 'spark', 'magic']);
    expect(snippetKinds(sharedOrders)).toEqual(['delta-sharing', 'spark', 'magic']);
    expect(snippetKinds(schema)).toEqual(['delta-sharing', 'magic']);
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

  it('loads a shared table with delta-sharing and the downloaded profile', () => {
    const code = snippet(sharedOrders, 'delta-sharing');
    expect(code).toContain('profile = "profile.share"');
    expect(code).toContain('delta_sharing.load_as_pandas(profile + "#sales-share.sales.orders", limit=100)');
    expect(snippet(sharedOrders, 'spark')).toContain('delta_sharing_table(spark, "profile.share#sales-share.sales.orders")');
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
