/** How the explorer writes sizes, counts, times and Iceberg's nested types. */
import { typeText } from '../format';
import { IField } from '../types';

export function bytesText(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) {
    return 'unknown';
  }
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit ? `${value.toFixed(1)} ${units[unit]}` : `${bytes} B`;
}

export function countText(count: number | null | undefined): string {
  return count === null || count === undefined ? 'unknown' : count.toLocaleString('en-US');
}

/** Epoch milliseconds (or an ISO text) as `YYYY-MM-DD HH:MM:SS UTC`, the same on every machine. */
export function timeText(time: number | string | null | undefined): string {
  if (time === null || time === undefined) {
    return 'unknown';
  }
  const date = new Date(time);
  return isNaN(date.getTime()) ? String(time) : date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

export interface IFieldRow {
  id: number | null;
  path: string;
  depth: number;
  type: string;
  required: boolean;
  doc?: string;
}

/** A schema's fields with those nested in structs, lists and maps, each with its id and depth. */
export function fieldRows(fields: IField[], depth = 0, prefix = ''): IFieldRow[] {
  return fields.flatMap(field => {
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    const row = { id: field.id, path, depth, type: typeText(field.type), required: field.required, doc: field.doc };
    return [row, ...nestedRows(field.type, depth + 1, path)];
  });
}

function nestedRows(type: unknown, depth: number, path: string): IFieldRow[] {
  const nested = (type ?? {}) as Record<string, unknown>;
  const child = (name: string, id: unknown, childType: unknown, required: unknown): IFieldRow[] =>
    fieldRows([{ id: id as number, name, type: childType, required: !!required }], depth, path);
  switch (nested.type) {
    case 'struct':
      return fieldRows(nested.fields as IField[], depth, path);
    case 'list':
      return child('element', nested['element-id'], nested.element, nested['element-required']);
    case 'map':
      return [
        ...child('key', nested['key-id'], nested.key, true),
        ...child('value', nested['value-id'], nested.value, nested['value-required'])
      ];
    default:
      return [];
  }
}
