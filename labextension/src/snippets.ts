/**
 * Ready-to-run code for a selected tree node: PyIceberg, DuckDB, Polars, Daft, pandas, Spark and
 * delta-sharing snippets, and the `%aistor` cell that shows the node. Kernels started by this Jupyter
 * already know the service (the engines' helpers, `aistor_lab.workbench.engines`, read it), so no
 * snippet carries an endpoint or a key.
 */
import { ITreeNode } from './treeModel';

export type SnippetKind = 'pyiceberg' | 'duckdb' | 'polars' | 'daft' | 'pandas' | 'spark' | 'delta-sharing' | 'magic';

export const SNIPPET_LABELS: Record<SnippetKind, string> = {
  pyiceberg: 'PyIceberg',
  duckdb: 'DuckDB',
  polars: 'Polars',
  daft: 'Daft',
  pandas: 'pandas',
  spark: 'Spark',
  'delta-sharing': 'delta-sharing',
  magic: '%aistor'
};

/** Every kind, in the order menus show them. */
export const SNIPPET_KINDS = Object.keys(SNIPPET_LABELS) as SnippetKind[];

const ENGINES_IMPORT = 'from aistor_lab.workbench import engines';

/** A Python string literal (JSON's escapes are Python's for these names). */
export function py(text: string): string {
  return JSON.stringify(text);
}

/** One argument of a `%aistor` line, quoted as shlex reads it when it has to be. */
export function shellWord(text: string): string {
  return /^[\w.:/@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

/** A Spark SQL identifier part, back-quoted when it is not a plain name. */
export function sqlPart(text: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(text) ? text : `\`${text.replace(/`/g, '``')}\``;
}

/** A DuckDB SQL identifier part, double-quoted when it is not a plain name. */
export function duckPart(text: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(text) ? text : `"${text.replace(/"/g, '""')}"`;
}

/** A SQL string literal. */
function sqlText(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** The table as DuckDB names it in the warehouse attached as `lake`. */
function duckName(node: ITreeNode): string {
  return ['lake', node.namespace!, node.table!].map(duckPart).join('.');
}

/** The `s3://` location of a Delta table's folder in a bucket. */
function deltaLocation(node: ITreeNode): string {
  return `s3://${node.bucket}/${(node.key ?? '').replace(/\/+$/, '')}`;
}

function sparkName(node: ITreeNode): string {
  const parts = ['aistor', ...(node.namespace ?? '').split('.').filter(Boolean)];
  if (node.table) {
    parts.push(node.table);
  }
  return parts.map(sqlPart).join('.');
}

/** The snippet kinds that make sense for a node. */
export function snippetKinds(node: ITreeNode): SnippetKind[] {
  switch (node.kind) {
    case 'warehouse':
    case 'namespace':
      return ['pyiceberg', 'spark', 'magic'];
    case 'table':
      return ['pyiceberg', 'duckdb', 'polars', 'daft', 'pandas', 'spark', 'magic'];
    case 'view':
      return ['spark', 'magic'];
    case 'share':
    case 'schema':
      return ['delta-sharing', 'magic'];
    case 'shared-table':
      return ['delta-sharing', 'polars', 'spark', 'magic'];
    case 'prefix':
      return node.tableFormat === 'delta' ? ['duckdb', 'polars', 'daft', 'pandas'] : [];
    default:
      return [];
  }
}

function pyiceberg(node: ITreeNode): string {
  const head = ['from aistor_lab.workbench.client import load_catalog', '', `catalog = load_catalog(${py(node.warehouse!)})`];
  if (node.kind === 'table') {
    return [
      ...head,
      `table = catalog.load_table(${py(`${node.namespace}.${node.table}`)})`,
      'df = table.scan(limit=100).to_pandas()',
      'df'
    ].join('\n');
  }
  if (node.kind === 'namespace') {
    return [...head, `catalog.list_tables(${py(node.namespace!)})`].join('\n');
  }
  return [...head, 'catalog.list_namespaces()'].join('\n');
}

/** The DuckDB connection of a snippet: the node's warehouse attached as `lake`, or none for buckets. */
function duckConnection(node: ITreeNode): string[] {
  const warehouse = node.kind === 'prefix' ? '' : py(node.warehouse!);
  return [ENGINES_IMPORT, '', `con = engines.duckdb(${warehouse})${warehouse ? '  # attached as `lake`' : ''}`];
}

/** What DuckDB selects for a table node: the catalog's table, or the Delta table in a bucket. */
function duckSelect(node: ITreeNode): string {
  const source = node.kind === 'prefix' ? `delta_scan(${sqlText(deltaLocation(node))})` : duckName(node);
  return `SELECT * FROM ${source} LIMIT 100`;
}

function duckdb(node: ITreeNode): string {
  return [...duckConnection(node), `con.sql(${py(duckSelect(node))})`].join('\n');
}

function pandas(node: ITreeNode): string {
  return [...duckConnection(node), `df = con.sql(${py(duckSelect(node))}).df()  # pandas`, 'df'].join('\n');
}

function polars(node: ITreeNode): string {
  if (node.kind === 'shared-table') {
    return [
      ENGINES_IMPORT,
      '',
      '# profile.share: download it from the side panel (Create token)',
      `df = engines.polars_shared_table("profile.share", ${py(`${node.share}.${node.schema}.${node.label}`)}, limit=100)`,
      'df'
    ].join('\n');
  }
  if (node.kind === 'prefix') {
    return [
      'import polars as pl',
      ENGINES_IMPORT,
      '',
      `lf = pl.scan_delta(${py(deltaLocation(node))}, storage_options=engines.polars_storage_options())`,
      'lf.head(100).collect()'
    ].join('\n');
  }
  return [
    ENGINES_IMPORT,
    '',
    `lf = engines.polars_scan_iceberg(${py(`${node.namespace}.${node.table}`)}, ${py(node.warehouse!)})`,
    'lf.head(100).collect()'
  ].join('\n');
}

function daft(node: ITreeNode): string {
  if (node.kind === 'prefix') {
    return [
      'import daft',
      ENGINES_IMPORT,
      '',
      `df = daft.read_deltalake(${py(deltaLocation(node))}, io_config=engines.daft_io_config())`,
      'df.show()'
    ].join('\n');
  }
  return [
    ENGINES_IMPORT,
    '',
    `df = engines.daft_read_iceberg(${py(`${node.namespace}.${node.table}`)}, ${py(node.warehouse!)})`,
    'df.show()'
  ].join('\n');
}

function spark(node: ITreeNode): string {
  if (node.kind === 'shared-table') {
    return [
      'from aistor_lab.workbench.spark import delta_sharing_table, session',
      '',
      'spark = session()',
      `df = delta_sharing_table(spark, ${py(`profile.share#${node.share}.${node.schema}.${node.label}`)})`,
      'df.show()'
    ].join('\n');
  }
  const head = ['from aistor_lab.workbench.spark import session', '', `spark = session(${py(node.warehouse!)})`];
  if (node.kind === 'table' || node.kind === 'view') {
    return [...head, `spark.sql(${py(`SELECT * FROM ${sparkName(node)} LIMIT 10`)}).show()`].join('\n');
  }
  if (node.kind === 'namespace') {
    return [...head, `spark.sql(${py(`SHOW TABLES IN ${sparkName(node)}`)}).show()`].join('\n');
  }
  return [...head, 'spark.sql("SHOW NAMESPACES IN aistor").show()'].join('\n');
}

function deltaSharing(node: ITreeNode): string {
  const head = [
    'import delta_sharing',
    '',
    '# profile.share: download it from the side panel (Create token)',
    'profile = "profile.share"'
  ];
  if (node.kind === 'shared-table') {
    const url = `#${node.share}.${node.schema}.${node.label}`;
    return [...head, `df = delta_sharing.load_as_pandas(profile + ${py(url)}, limit=100)`, 'df'].join('\n');
  }
  return [...head, 'delta_sharing.SharingClient(profile).list_all_tables()'].join('\n');
}

/** The `%aistor` line that shows the node (the panel's own commands, in a notebook). */
export function magicLine(node: ITreeNode): string {
  const words = (...parts: string[]) => ['%aistor', ...parts.map(shellWord)].join(' ');
  switch (node.kind) {
    case 'warehouse':
      return words('namespace', 'list', node.warehouse!);
    case 'namespace':
      return words('table', 'list', node.warehouse!, node.namespace!);
    case 'table':
    case 'view':
      return words('table', 'info', node.warehouse!, node.namespace!, node.table!);
    case 'share':
    case 'schema':
    case 'shared-table':
      return words('share', 'info', node.share!);
    default:
      return words('status');
  }
}

/** The code of one snippet for a node; throws for a kind the node has no snippet of. */
export function snippet(node: ITreeNode, kind: SnippetKind): string {
  if (!snippetKinds(node).includes(kind)) {
    throw new Error(`no ${SNIPPET_LABELS[kind]} snippet for a ${node.kind}`);
  }
  switch (kind) {
    case 'pyiceberg':
      return pyiceberg(node);
    case 'duckdb':
      return duckdb(node);
    case 'polars':
      return polars(node);
    case 'daft':
      return daft(node);
    case 'pandas':
      return pandas(node);
    case 'spark':
      return spark(node);
    case 'delta-sharing':
      return deltaSharing(node);
    case 'magic':
      return ['%load_ext aistor_lab', magicLine(node)].join('\n');
  }
}
