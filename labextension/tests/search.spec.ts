import { resultName, resultPlace, treePath } from '../src/search/reveal';
import { BUCKETS_ID, namespaceContentNodes, SHARES_ID, TreeModel, warehouseNodes, WAREHOUSES_ID } from '../src/treeModel';

describe('search result -> tree path', () => {
  it('opens every level of a nested namespace down to a table', () => {
    const path = treePath({ kind: 'table', label: 'orders', warehouse: 'analytics', namespace: 'sales.eu', table: 'orders' });
    expect(path).toEqual({
      ancestors: [WAREHOUSES_ID, 'warehouse:analytics', 'namespace:analytics/sales', 'namespace:analytics/sales.eu'],
      target: 'table:analytics/sales.eu/orders'
    });
  });

  it('names the ids the tree gives its nodes', () => {
    const model = new TreeModel();
    model.setChildren(WAREHOUSES_ID, warehouseNodes(['analytics']));
    model.setChildren('warehouse:analytics', namespaceContentNodes('analytics', undefined, { namespaces: [['sales']], tables: [], views: [] }));
    model.setChildren(
      'namespace:analytics/sales',
      namespaceContentNodes('analytics', 'sales', { namespaces: [], tables: ['orders'], views: ['recent'] })
    );
    for (const result of [
      { kind: 'namespace' as const, label: 'sales', warehouse: 'analytics', namespace: 'sales' },
      { kind: 'table' as const, label: 'orders', warehouse: 'analytics', namespace: 'sales', table: 'orders' },
      { kind: 'view' as const, label: 'analytics.sales.recent', warehouse: 'analytics', namespace: 'sales', view: 'recent' }
    ]) {
      const { ancestors, target } = treePath(result);
      expect([...ancestors, target].every(id => model.find(id))).toBe(true);
    }
  });

  it('finds shares, shared tables, buckets and folders in buckets', () => {
    expect(treePath({ kind: 'warehouse', label: 'analytics', warehouse: 'analytics' })).toEqual({
      ancestors: [WAREHOUSES_ID],
      target: 'warehouse:analytics'
    });
    expect(treePath({ kind: 'share', label: 's', share: 's' })).toEqual({ ancestors: [SHARES_ID], target: 'share:s' });
    expect(treePath({ kind: 'shared-table', label: 't', share: 's', schema: 'x', table: 't' })).toEqual({
      ancestors: [SHARES_ID, 'share:s', 'schema:s/x'],
      target: 'shared-table:s/x/t'
    });
    expect(treePath({ kind: 'bucket', label: 'lake', bucket: 'lake' })).toEqual({ ancestors: [BUCKETS_ID], target: 'bucket:lake' });
    expect(treePath({ kind: 'bucket', label: 'people', bucket: 'lake', path: 'tables/people/' })).toEqual({
      ancestors: [BUCKETS_ID, 'bucket:lake', 'prefix:lake/tables/'],
      target: 'prefix:lake/tables/people/'
    });
  });

  it('names a result by its own name', () => {
    expect(resultName({ kind: 'table', label: 'w.a.b.o', warehouse: 'w', namespace: 'a.b', table: 'o' })).toBe('o');
    expect(resultName({ kind: 'namespace', label: 'w.a.b', warehouse: 'w', namespace: 'a.b' })).toBe('b');
    expect(resultName({ kind: 'view', label: 'w.a.v', warehouse: 'w', namespace: 'a', view: 'v' })).toBe('v');
    expect(resultName({ kind: 'bucket', label: 'lake', bucket: 'lake', path: '' })).toBe('lake');
    expect(resultName({ kind: 'bucket', label: 'p', bucket: 'lake', path: 'tables/p/' })).toBe('p');
  });

  it('says where a result is', () => {
    expect(resultPlace({ kind: 'table', label: 'o', warehouse: 'w', namespace: 'a.b', table: 'o' })).toBe('w / a.b');
    expect(resultPlace({ kind: 'bucket', label: 'p', bucket: 'lake', path: 'tables/p/' })).toBe('s3://lake/tables/p/');
    expect(resultPlace({ kind: 'share', label: 's', share: 's' })).toBe('');
  });
});
