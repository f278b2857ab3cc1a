import {
  baseName,
  bucketNodes,
  listingId,
  listingNodes,
  s3Path,
  tableNameOf,
  uploadPrefix,
  uploadTargetId
} from '../src/buckets/listing';
import { IObjectListing } from '../src/buckets/types';
import { BUCKETS_ID, parentId, TreeModel } from '../src/treeModel';

const page = (part: Partial<IObjectListing>): IObjectListing => ({
  bucket: 'lake',
  prefix: 'raw/',
  folders: [],
  objects: [],
  nextToken: null,
  table: null,
  ...part
});
const object = (key: string) => ({ key, size: 10, lastModified: '2026-01-01T00:00:00Z', etag: '"e"' });

describe('bucket listing nodes', () => {
  it('lists buckets by name, a warehouse marked', () => {
    const nodes = bucketNodes([
      { name: 'lake', created: '', warehouse: false },
      { name: 'analytics', created: '', warehouse: true }
    ]);
    expect(nodes.map(n => [n.id, n.badge])).toEqual([
      ['bucket:analytics', 'warehouse'],
      ['bucket:lake', undefined]
    ]);
    expect(nodes[0].children).toBeNull();
  });

  it('shows folders first, then objects, by their last segment, a table folder with its format', () => {
    const nodes = listingNodes(
      null,
      page({
        folders: [
          { prefix: 'raw/people/', table: 'delta' },
          { prefix: 'raw/2026/', table: null }
        ],
        objects: [object('raw/b.csv'), object('raw/a.csv')]
      })
    );
    expect(nodes.map(n => [n.kind, n.label, n.badge])).toEqual([
      ['prefix', '2026', undefined],
      ['prefix', 'people', 'Delta'],
      ['object', 'a.csv', undefined],
      ['object', 'b.csv', undefined]
    ]);
    expect(nodes[1]).toMatchObject({ id: 'prefix:lake/raw/people/', key: 'raw/people/', tableFormat: 'delta', children: null });
    expect(nodes[2]).toMatchObject({ id: 'object:lake/raw/a.csv', bucket: 'lake', key: 'raw/a.csv', children: [] });
  });

  it('ends a paged listing with a "Load more…" row that carries the token', () => {
    const nodes = listingNodes(null, page({ objects: [object('raw/a.csv')], nextToken: 'T1' }));
    expect(nodes[nodes.length - 1]).toMatchObject({ kind: 'more', id: 'more:lake/raw/', key: 'raw/', nextToken: 'T1' });
  });

  it('merges the next page into what is shown, without duplicates, and drops the row at the end', () => {
    const first = listingNodes(null, page({ folders: [{ prefix: 'raw/x/', table: null }], objects: [object('raw/a.csv')], nextToken: 'T1' }));
    const second = listingNodes(
      first,
      page({ folders: [{ prefix: 'raw/y/', table: null }], objects: [object('raw/a.csv'), object('raw/c.csv')], nextToken: 'T2' })
    );
    expect(second.map(n => n.label)).toEqual(['x', 'y', 'a.csv', 'c.csv', 'Load more…']);
    expect(second[second.length - 1].nextToken).toBe('T2');
    const last = listingNodes(second, page({ objects: [object('raw/d.csv')] }));
    expect(last.map(n => n.label)).toEqual(['x', 'y', 'a.csv', 'c.csv', 'd.csv']);
  });

  it('keeps what was loaded under a folder when a page merges into the tree', () => {
    const model = new TreeModel();
    model.setChildren(BUCKETS_ID, bucketNodes([{ name: 'lake', created: '', warehouse: false }]));
    model.setChildren('bucket:lake', listingNodes(null, page({ prefix: '', folders: [{ prefix: 'raw/', table: null }], nextToken: 'T' })));
    model.setChildren('prefix:lake/raw/', listingNodes(null, page({ objects: [object('raw/a.csv')] })));
    const shown = model.find('bucket:lake')!.children;
    model.setChildren('bucket:lake', listingNodes(shown, page({ prefix: '', objects: [object('top.txt')] })));
    expect(model.find('object:lake/raw/a.csv')).toBeDefined();
    expect(model.find('object:lake/top.txt')).toBeDefined();
    expect(model.find('more:lake/')).toBeUndefined();
  });

  it('knows paths, parents and where uploads go', () => {
    const [folder, file] = listingNodes(null, page({ folders: [{ prefix: 'raw/x/', table: null }], objects: [object('raw/a.csv')] }));
    const [bucket] = bucketNodes([{ name: 'lake', created: '', warehouse: false }]);
    expect(baseName('raw/x/')).toBe('x');
    expect(s3Path(folder)).toBe('s3://lake/raw/x/');
    expect(s3Path(bucket)).toBe('s3://lake/');
    expect(parentId(folder)).toBe('prefix:lake/raw/');
    expect(parentId(file)).toBe('prefix:lake/raw/');
    expect(parentId(bucket)).toBe(BUCKETS_ID);
    expect(parentId(listingNodes(null, page({ prefix: '', objects: [object('top.txt')] }))[0])).toBe('bucket:lake');
    expect([uploadPrefix(bucket), uploadPrefix(folder), uploadPrefix(file)]).toEqual(['', 'raw/x/', 'raw/']);
    expect([uploadTargetId(bucket), uploadTargetId(folder), uploadTargetId(file)]).toEqual([
      'bucket:lake',
      'prefix:lake/raw/x/',
      'prefix:lake/raw/'
    ]);
    expect(listingId('lake', '')).toBe('bucket:lake');
  });
});

describe('the table a file becomes', () => {
  it('is named after the file, in the characters a table name takes', () => {
    expect(tableNameOf('in/Customer List.csv')).toBe('customer_list');
    expect(tableNameOf('orders.parquet')).toBe('orders');
    expect(tableNameOf('2024-sales.jsonl')).toBe('t_2024_sales');
  });
});
