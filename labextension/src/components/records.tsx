/**
 * The plain records the panel's details and the explorer's sections show: facts (a definition list
 * of name → value) and tables of rows. Each caller passes its own class, which carries its look.
 */
import React from 'react';

export function FactList(props: {
  className: string;
  label: string;
  facts: [string, React.ReactNode][];
  /** Marks each value with `data-fact="name"` (for tests and styles that pick one). */
  named?: boolean;
}): JSX.Element {
  return (
    <dl className={props.className} aria-label={props.label}>
      {props.facts.map(([name, value]) => (
        <React.Fragment key={name}>
          <dt>{name}</dt>
          <dd data-fact={props.named ? name : undefined}>{value}</dd>
        </React.Fragment>
      ))}
    </dl>
  );
}

export function RowTable(props: {
  className: string;
  label: string;
  columns: string[];
  rows: React.ReactNode[][];
}): JSX.Element {
  return (
    <table className={props.className} aria-label={props.label}>
      <thead>
        <tr>
          {props.columns.map(column => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row, i) => (
          <tr key={i}>
            {row.map((cell, j) => (
              <td key={j}>{cell}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Name → value pairs sorted by name (table properties, object metadata). */
export function sortedEntries(record: Record<string, string>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
}
