/** Small pieces the explorer's sections share: facts, key/value lists and plain tables. */
import React from 'react';

import { FactList, RowTable, sortedEntries } from '../../components/records';

export function Facts(props: { label: string; facts: [string, React.ReactNode][] }): JSX.Element {
  return <FactList className="jp-AIStorExplorer-facts" {...props} />;
}

export function Properties({ properties }: { properties: Record<string, string> }): JSX.Element {
  const entries = sortedEntries(properties);
  return entries.length ? (
    <Facts label="Properties" facts={entries} />
  ) : (
    <p className="jp-AIStorExplorer-note">No properties.</p>
  );
}

export function Table(props: {
  label: string;
  columns: string[];
  rows: React.ReactNode[][];
  empty: string;
  /** Cells on one line (log-like records: ids and times are not to be broken). */
  nowrap?: boolean;
}): JSX.Element {
  if (!props.rows.length) {
    return <p className="jp-AIStorExplorer-note">{props.empty}</p>;
  }
  return (
    <RowTable
      className={`jp-AIStorExplorer-table${props.nowrap ? ' jp-mod-nowrap' : ''}`}
      label={props.label}
      columns={props.columns}
      rows={props.rows}
    />
  );
}

export function Section(props: { title: string; children: React.ReactNode }): JSX.Element {
  return (
    <section className="jp-AIStorExplorer-section" aria-label={props.title}>
      <h3>{props.title}</h3>
      {props.children}
    </section>
  );
}

/** A value of the JSON the API gave, readable: text as it is, the rest as compact JSON. */
export function valueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
