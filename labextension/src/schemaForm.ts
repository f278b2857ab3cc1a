/** The columns of the "New table" form, written as the `table create --schema` column list. */

export interface IColumn {
  name: string;
  type: string;
  required: boolean;
}

export const COLUMN_TYPES = [
  'long',
  'int',
  'string',
  'double',
  'float',
  'boolean',
  'decimal(10, 2)',
  'date',
  'timestamp',
  'timestamptz',
  'binary',
  'uuid'
];

/** `id long not null, name string`; columns without a name are left out. */
export function columnsSpec(columns: IColumn[]): string {
  return columns
    .filter(column => column.name.trim())
    .map(column => `${column.name.trim()} ${column.type}${column.required ? ' not null' : ''}`)
    .join(', ');
}

/** Why the columns cannot make a table, or null when they can. */
export function columnsProblem(columns: IColumn[]): string | null {
  const names = columns.map(column => column.name.trim()).filter(Boolean);
  if (!names.length) {
    return 'Add at least one column with a name.';
  }
  const bad = names.find(name => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
  if (bad) {
    return `Column names are letters, digits and _ (not "${bad}").`;
  }
  const seen = new Set<string>();
  const twice = names.find(name => (seen.has(name.toLowerCase()) ? true : (seen.add(name.toLowerCase()), false)));
  return twice ? `The column "${twice}" is there twice.` : null;
}
