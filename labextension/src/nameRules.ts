/**
 * The names the service accepts, checked as the user types (the forms keep OK disabled while one is
 * wrong). The same rules as the service's own checks: `tables/names.py` (warehouses are buckets:
 * 3-63 lowercase letters, digits and hyphens; namespace levels, tables and views any text of 1-255
 * UTF-8 bytes but control characters, `/`, `.` and `..`) and `sharing/shares.py` (share names:
 * letters, digits, `_`, `.` and `-`; schema and shared-table names the same without dots).
 * Each function answers why a name is refused, or null when it is fine.
 */

const RESERVED_WAREHOUSES = ['delta-sharing', 'minio'];
const MAX_NAME_BYTES = 255;
const MAX_NAMESPACE_DEPTH = 16;

export function warehouseNameProblem(name: string): string | null {
  if (!name) {
    return 'Give the warehouse a name.';
  }
  if (name.length < 3 || name.length > 63) {
    return 'A warehouse name has 3 to 63 characters.';
  }
  if (!/^[a-z0-9-]+$/.test(name)) {
    return 'A warehouse name has lowercase letters, digits and hyphens only.';
  }
  if (name.startsWith('-') || name.endsWith('-')) {
    return 'A warehouse name starts and ends with a letter or digit.';
  }
  if (RESERVED_WAREHOUSES.includes(name)) {
    return `"${name}" is reserved by the service: choose another name.`;
  }
  return null;
}

/** One catalog name: a namespace level, a table or a view. */
export function catalogNameProblem(name: string, what = 'name'): string | null {
  if (!name) {
    return `Give the ${what} a name.`;
  }
  if (new TextEncoder().encode(name).length > MAX_NAME_BYTES) {
    return `A ${what} has at most ${MAX_NAME_BYTES} bytes.`;
  }
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(name) || name.includes('/')) {
    return `A ${what} cannot hold "/" or control characters.`;
  }
  if (name === '.' || name === '..') {
    return `"${name}" cannot be a ${what}.`;
  }
  return null;
}

/** A namespace as typed: dotted levels (`sales.eu`), each a catalog name. */
export function namespaceProblem(namespace: string): string | null {
  if (!namespace) {
    return 'Give the namespace a name.';
  }
  const levels = namespace.split('.');
  if (levels.length > MAX_NAMESPACE_DEPTH) {
    return `A namespace has at most ${MAX_NAMESPACE_DEPTH} levels.`;
  }
  if (levels.some(level => !level)) {
    return 'Dots separate the levels of a namespace: no empty level (".." or a dot at an end).';
  }
  for (const level of levels) {
    const problem = catalogNameProblem(level, 'namespace level');
    if (problem) {
      return problem;
    }
  }
  return null;
}

export function tableNameProblem(name: string): string | null {
  return catalogNameProblem(name, 'table name');
}

export function shareNameProblem(name: string): string | null {
  if (!name) {
    return 'Give the share a name.';
  }
  return /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}$/.test(name)
    ? null
    : 'A share name has letters, digits, _, . and - (up to 255), and does not start with . or -.';
}

/** A schema of a share, or the name a table is shared as. */
export function sharedNameProblem(name: string, what = 'schema'): string | null {
  if (!name) {
    return `Give the ${what} a name.`;
  }
  return /^[A-Za-z0-9_][A-Za-z0-9_-]{0,254}$/.test(name)
    ? null
    : `A ${what} name has letters, digits, _ and - (up to 255), no dots, and does not start with -.`;
}

const ENTRY_FORMS = 'NAME:delta:BUCKET:PATH or NAME:uniform:WAREHOUSE:NAMESPACE:TABLE';

/** A table entry of a share, as `share create` takes it. */
export function shareEntryProblem(entry: string): string | null {
  const [name, kind, ...rest] = entry.split(':');
  if (!entry || rest.length < 2 || !['delta', 'uniform'].includes(kind)) {
    return `Write the table as ${ENTRY_FORMS}.`;
  }
  const problems =
    kind === 'delta'
      ? [
          /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(rest[0]) ? null : `"${rest[0]}" is not a bucket name.`,
          rest.slice(1).join(':').replace(/^\/+|\/+$/g, '') ? null : 'Give the path of the Delta table in its bucket.'
        ]
      : [
          rest.length === 3 ? null : `Write the table as ${ENTRY_FORMS}.`,
          warehouseNameProblem(rest[0]),
          namespaceProblem(rest[1]),
          tableNameProblem(rest[2] ?? '')
        ];
  return [sharedNameProblem(name, 'table'), ...problems].find(Boolean) ?? null;
}
