import { concernedField } from '../src/formErrors';

const check = () => null;

describe('the field a refusal is about', () => {
  it("is a form's only checked field", () => {
    expect(concernedField([{ name: 'name', label: 'Name', check }], 'Warehouse already exists: sales')).toBe('name');
  });

  it('is the field whose label the message names, first match first', () => {
    const fields = [
      { name: 'share', label: 'Share (new or existing)', check },
      { name: 'schema', label: 'Schema', check },
      { name: 'table', label: 'Table', check }
    ];
    expect(concernedField(fields, 'invalid schema name "a.b"')).toBe('schema');
    expect(concernedField(fields, 'Share sales-share already exists')).toBe('share');
    expect(concernedField(fields, 'no such table analytics.sales.x')).toBe('table');
  });

  it('is none when the message names no field: the error goes under the form', () => {
    expect(concernedField([{ name: 'expires', label: 'Expires after' }], 'The service is not running')).toBeUndefined();
  });

  it('prefers the partition over the table for a refused partition', () => {
    const fields = [
      { name: 'partition', label: 'Partition' },
      { name: 'table', label: 'Table' }
    ];
    expect(concernedField(fields, 'Cannot partition table items by no_such_column')).toBe('partition');
  });
});
