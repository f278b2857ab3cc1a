/**
 * Ready-to-run code for a selected tree node: PyIceberg, Spark and delta-sharing snippets, and the
 * `%aistor` cell that shows the node. Kernels started by this Jupyter already know the service, so
 * no snippet carries an endpoint or a key.
 */
import { ITreeNode } from './treeModel';

export type SnippetKind = 'pyiceberg' | 'spark' | 'delta-sharing' | 'magic';

export const SNIPPET_LABELS: Record<SnippetKind, string> = {
  pyiceberg: 'PyIceberg',
  spark: 'Spark',
  'delta-sharing': 'delta-sharing',
  magic: '%aistor'
};

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
    case 'table':
    case 'view':
      return node.kind === 'view' ? ['spark', 'magic'] : ['pyiceberg', 'spark', 'magic'];
    case 'share':
    case 'schema':
    case 'shared-table':
      return node.kind === 'shared-table' ? ['delta-sharing', 'spark', 'magic'] : ['delta-sharing', 'magic'];
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
    case 'spark':
      return spark(node);
    case 'delta-sharing':
      return deltaSharing(node);
    case 'magic':
      return ['%load_ext aistor_lab', magicLine(node)].join('\n');
  }
}
