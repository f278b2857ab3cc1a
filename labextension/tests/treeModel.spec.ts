import {
  BUCKETS_ID,
  namespaceContentNodes,
  parentId,
  shareContentNodes,
  shareNodes,
  SHARES_ID,
  TreeModel,
  warehouseNodes,
  WAREHOUSES_ID
} from '../src/treeModel';
import { IShareInfo } from '../src/types';

const SHARE: IShareInfo = {
  name: 'sales-share',
  id: 's1',
  created: '2026-01-01',
  updated: '2026-01-01',
  schemas: [
    {
      name: 'sales',
      tables: [
        { name: 'orders', id: 't1', kind: 'uniform', warehouse: 'analytics', namespace: 'sales.eu', table: 'orders' },
        { name: 'people', id: 't2', kind: 'delta', bucket: 'hr', location: 'tables/people' }
      ]
    }
  ]
};

function loadedModel(): TreeModel {
  const model = new TreeModel();
  model.setChildren(WAREHOUSES_ID, warehouseNodes(['lake', 'analytics']));
  model.setChildren(SHARES_ID, shareNodes([{ ...SHARE, schemas: 1, tables: 2 }]));
  model.setChildren(
    'warehouse:analytics',
    namespaceContentNodes('analytics', undefined, { namespaces: [['sales']], tables: [], views: [] })
  );
  model.setChildren(
    'namespace:analytics/sales',
    namespaceContentNodes('analytics', 'sales', {
      namespaces: [['sales', 'eu']],
      tables: ['orders', 'customers'],
      views: ['recent']
    })
  );
  return model;
}

const labels = (model: TreeModel) => model.rows().map(r => `${'  '.repeat(r.depth)}${r.node.label}`);

describe('tree nodes', () => {
  it('sorts warehouses and keeps their children unloaded', () => {
    const nodes = warehouseNodes(['lake', 'analytics']);
    expect(nodes.map(n => n.label)).toEqual(['analytics', 'lake']);
    expect(nodes[0]).toMatchObject({ id: 'warehouse:analytics', kind: 'warehouse', children: null });
  });

  it('lists namespaces, then tables, then views, with their coordinates', () => {
    const nodes = namespaceContentNodes('analytics', 'sales', {
      namespaces: [['sales', 'eu']],
      tables: ['orders', 'customers'],
      views: ['recent']
    });
    expect(nodes.map(n => [n.kind, n.label])).toEqual([
      ['namespace', 'eu'],
      ['table', 'customers'],
      ['table', 'orders'],
      ['view', 'recent']
    ]);
    expect(nodes[0]).toMatchObject({ id: 'namespace:analytics/sales.eu', namespace: 'sales.eu', children: null });
    expect(nodes[2]).toMatchObject({ warehouse: 'analytics', namespace: 'sales', table: 'orders', children: [] });
  });

  it('shows a shared table with its kind and source', () => {
    const [schema] = shareContentNodes(SHARE);
    expect(schema.id).toBe('schema:sales-share/sales');
    const [orders, people] = schema.children!;
    expect(orders).toMatchObject({ badge: 'Iceberg', detail: 'analytics / sales.eu / orders' });
    expect(people).toMatchObject({ badge: 'Delta', detail: 's3://hr/tables/people' });
  });

  it('knows the parent a change reloads', () => {
    const model = loadedModel();
    expect(parentId(model.find('warehouse:analytics')!)).toBe(WAREHOUSES_ID);
    expect(parentId(model.find('namespace:analytics/sales')!)).toBe('warehouse:analytics');
    expect(parentId(model.find('namespace:analytics/sales.eu')!)).toBe('namespace:analytics/sales');
    expect(parentId(model.find('table:analytics/sales/orders')!)).toBe('namespace:analytics/sales');
    expect(parentId(shareNodes([{ ...SHARE, schemas: 1, tables: 2 }])[0])).toBe(SHARES_ID);
  });
});

describe('TreeModel', () => {
  it('shows only expanded nodes', () => {
    const model = loadedModel();
    expect(labels(model)).toEqual(['Warehouses', '  analytics', '  lake', 'Shares', '  sales-share', 'Buckets']);
    model.expanded.add('warehouse:analytics');
    model.expanded.add('namespace:analytics/sales');
    expect(labels(model)).toEqual([
      'Warehouses',
      '  analytics',
      '    sales',
      '      eu',
      '      customers',
      '      orders',
      '      recent',
      '  lake',
      'Shares',
      '  sales-share',
      'Buckets'
    ]);
  });

  it('keeps loaded grandchildren across a reload and forgets removed nodes', () => {
    const model = loadedModel();
    model.setChildren(WAREHOUSES_ID, warehouseNodes(['analytics']));
    expect(model.find('table:analytics/sales/orders')).toBeDefined();
    expect(model.find('warehouse:lake')).toBeUndefined();
  });

  it('lists expanded nodes outermost first, for a refresh', () => {
    const model = loadedModel();
    model.expanded.add('namespace:analytics/sales');
    model.expanded.add('warehouse:analytics');
    expect(model.expandedIds()).toEqual([
      WAREHOUSES_ID,
      'warehouse:analytics',
      'namespace:analytics/sales',
      SHARES_ID,
      BUCKETS_ID
    ]);
  });

  it('clears a node error when its children load', () => {
    const model = loadedModel();
    model.setError(WAREHOUSES_ID, 'boom');
    model.setChildren(WAREHOUSES_ID, []);
    expect(model.errors.has(WAREHOUSES_ID)).toBe(false);
  });
});
