/**
 * Notebook code that reads a table as it was: an Iceberg snapshot (PyIceberg, Spark SQL, DuckDB over
 * PyIceberg's scan) or a Delta version (deltalake, Spark, DuckDB). Snapshot ids are 64-bit: they are
 * written from the id's text as given, so no digit is lost to JavaScript's numbers.
 */
import { py, sqlPart } from '../snippets';

/** `python`: the format's own Python library (PyIceberg, deltalake). */
export type TravelKind = 'python' | 'spark' | 'duckdb';

export const TRAVEL_KINDS: TravelKind[] = ['python', 'spark', 'duckdb'];

export function travelLabel(format: 'iceberg' | 'delta', kind: TravelKind): string {
  switch (kind) {
    case 'python':
      return format === 'iceberg' ? 'PyIceberg' : 'deltalake';
    case 'spark':
      return format === 'iceberg' ? 'Spark SQL' : 'Spark';
    case 'duckdb':
      return 'DuckDB';
  }
}

/** The id as a Python/SQL integer literal; anything but digits is refused (it goes into code). */
function integerLiteral(id: string): string {
  if (!/^-?\d+$/.test(id)) {
    throw new Error(`not a snapshot id or version: ${JSON.stringify(id)}`);
  }
  return id;
}

export interface IIcebergTable {
  warehouse: string;
  namespace: string;
  table: string;
}

export function icebergTimeTravel(source: IIcebergTable, snapshotId: string, kind: TravelKind): string {
  const id = integerLiteral(snapshotId);
  const name = `${source.namespace}.${source.table}`;
  const load = [
    'from aistor_lab.workbench.client import load_catalog',
    '',
    `table = load_catalog(${py(source.warehouse)}).load_table(${py(name)})`
  ];
  switch (kind) {
    case 'python':
      return [...load, `df = table.scan(snapshot_id=${id}).to_pandas()`, 'df'].join('\n');
    case 'spark': {
      const sqlName = ['aistor', ...source.namespace.split('.'), source.table].map(sqlPart).join('.');
      return [
        'from aistor_lab.workbench.spark import session',
        '',
        `spark = session(${py(source.warehouse)})`,
        `spark.sql(${py(`SELECT * FROM ${sqlName} VERSION AS OF ${id}`)}).show()`
      ].join('\n');
    }
    case 'duckdb':
      return [
        ...load,
        `con = table.scan(snapshot_id=${id}).to_duckdb(table_name="snapshot")`,
        'con.sql("SELECT * FROM snapshot LIMIT 100")'
      ].join('\n');
  }
}

export interface IDeltaTable {
  bucket: string;
  path: string;
}

export function deltaTimeTravel(source: IDeltaTable, version: number | string, kind: TravelKind): string {
  const v = integerLiteral(String(version));
  const uri = py(`s3://${source.bucket}/${source.path.replace(/^\/+|\/+$/g, '')}`);
  const load = [
    'from deltalake import DeltaTable',
    'from aistor_lab.workbench.service_config import ServiceConfig, delta_storage_options',
    '',
    `table = DeltaTable(${uri}, version=${v}, storage_options=delta_storage_options(ServiceConfig.from_env()))`
  ];
  switch (kind) {
    case 'python':
      return [...load, 'df = table.to_pandas()', 'df'].join('\n');
    case 'spark':
      return [
        'from aistor_lab.workbench.spark import delta_table, session',
        '',
        'spark = session()',
        `delta_table(spark, ${uri}, version=${v}).show()`
      ].join('\n');
    case 'duckdb':
      return [
        'import duckdb',
        ...load,
        'snapshot = table.to_pyarrow_dataset()',
        'duckdb.sql("SELECT * FROM snapshot LIMIT 100")'
      ].join('\n');
  }
}
