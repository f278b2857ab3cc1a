import {
  catalogNameProblem,
  namespaceProblem,
  sharedNameProblem,
  shareEntryProblem,
  shareNameProblem,
  tableNameProblem,
  warehouseNameProblem
} from '../src/nameRules';

describe('name rules', () => {
  it('takes warehouse names as the catalog does (bucket names without dots)', () => {
    for (const good of ['analytics', 'a1b', 'sales-2026', 'x'.repeat(63)]) {
      expect(warehouseNameProblem(good)).toBeNull();
    }
    expect(warehouseNameProblem('')).toMatch(/name/);
    expect(warehouseNameProblem('ab')).toMatch(/3 to 63/);
    expect(warehouseNameProblem('x'.repeat(64))).toMatch(/3 to 63/);
    expect(warehouseNameProblem('Sales')).toMatch(/lowercase/);
    expect(warehouseNameProblem('my.lake')).toMatch(/lowercase letters, digits and hyphens/);
    expect(warehouseNameProblem('-lake')).toMatch(/starts and ends/);
    expect(warehouseNameProblem('delta-sharing')).toMatch(/reserved/);
  });

  it('takes any namespace level or table name but control characters, / and dot names', () => {
    expect(catalogNameProblem('Ünïcode name')).toBeNull();
    expect(tableNameProblem('orders')).toBeNull();
    expect(tableNameProblem('')).toMatch(/Give/);
    expect(tableNameProblem('a/b')).toMatch(/"\/"/);
    expect(tableNameProblem('tab\there')).toMatch(/control/);
    expect(tableNameProblem('..')).toMatch(/cannot be/);
    expect(tableNameProblem('é'.repeat(128))).toMatch(/255 bytes/);
  });

  it('reads a namespace as dotted levels', () => {
    expect(namespaceProblem('sales')).toBeNull();
    expect(namespaceProblem('sales.eu')).toBeNull();
    expect(namespaceProblem('sales..eu')).toMatch(/empty level/);
    expect(namespaceProblem('sales.')).toMatch(/empty level/);
    expect(namespaceProblem('a/b')).toMatch(/"\/"/);
    expect(namespaceProblem(Array(17).fill('x').join('.'))).toMatch(/16 levels/);
  });

  it('takes share names with dots, schema and shared names without', () => {
    expect(shareNameProblem('sales.share-1')).toBeNull();
    expect(shareNameProblem('-share')).toMatch(/letters/);
    expect(shareNameProblem('a b')).toMatch(/letters/);
    expect(sharedNameProblem('sales_eu')).toBeNull();
    expect(sharedNameProblem('sales.eu')).toMatch(/no dots/);
    expect(sharedNameProblem('', 'table')).toBe('Give the table a name.');
  });

  it('reads a share table entry in either form', () => {
    expect(shareEntryProblem('orders:uniform:analytics:sales.eu:orders')).toBeNull();
    expect(shareEntryProblem('people:delta:lake:tables/people')).toBeNull();
    expect(shareEntryProblem('orders')).toMatch(/NAME:delta:BUCKET:PATH/);
    expect(shareEntryProblem('orders:parquet:lake:x')).toMatch(/NAME:delta:BUCKET:PATH/);
    expect(shareEntryProblem('orders:uniform:Analytics:sales:orders')).toMatch(/lowercase/);
    expect(shareEntryProblem('orders:uniform:analytics:sales')).toMatch(/NAME:uniform/);
    expect(shareEntryProblem('or.ders:delta:lake:x')).toMatch(/no dots/);
    expect(shareEntryProblem('people:delta:lake:/')).toMatch(/path/);
    expect(shareEntryProblem('people:delta:La:x')).toMatch(/bucket name/);
  });
});
