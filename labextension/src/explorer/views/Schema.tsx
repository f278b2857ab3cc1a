/** The schema section: nested fields with ids, required and docs; Iceberg's schema history. */
import React from 'react';

import { typeText } from '../../format';
import { IField } from '../../types';
import { fieldRows } from '../display';
import { Loaded } from '../model';
import { ISchemaChange } from '../types';
import { Section, Table, valueText } from './common';

function Fields({ fields, label }: { fields: IField[]; label: string }): JSX.Element {
  return (
    <Table
      label={label}
      columns={['id', 'name', 'type', 'required', 'doc']}
      rows={fieldRows(fields).map(row => [
        row.id ?? '',
        <span style={{ paddingLeft: row.depth * 16 }}>{row.path.split('.').slice(row.depth).join('.')}</span>,
        <code>{row.type}</code>,
        row.required ? 'required' : 'optional',
        row.doc ?? ''
      ])}
      empty="No columns."
    />
  );
}

/** `added note (id 3): string`, `renamed label (id 2): name → label`, `removed x (id 4): was long`. */
function changeText(change: ISchemaChange): string {
  const has = (value: unknown) => value !== undefined && value !== null;
  const detail =
    has(change.from) && has(change.to)
      ? `: ${valueText(change.from)} → ${valueText(change.to)}`
      : has(change.to)
        ? `: ${valueText(change.to)}`
        : has(change.from)
          ? `: was ${valueText(change.from)}`
          : '';
  return `${change.change} ${change.path} (id ${change.fieldId})${detail}`;
}

export function Schema({ loaded }: { loaded: Loaded }): JSX.Element {
  switch (loaded.kind) {
    case 'iceberg': {
      const d = loaded.details;
      return (
        <>
          <Section title={`Current schema (id ${d.currentSchemaId ?? d.schema['schema-id'] ?? '?'})`}>
            <Fields fields={d.schema.fields} label="Columns" />
          </Section>
          <Section title="Schema history">
            {d.schemaHistory.length ? (
              <ol className="jp-AIStorExplorer-history" aria-label="Schema history">
                {d.schemaHistory.map(version => (
                  <li key={version.schemaId}>
                    <strong>Schema {version.schemaId}</strong>
                    {version.schemaId === d.currentSchemaId && <span className="jp-AIStorExplorer-badge">current</span>}
                    <ul>
                      {version.changes.length ? (
                        version.changes.map((change, i) => (
                          <li key={i} className={`jp-AIStorExplorer-change jp-mod-${change.change}`}>
                            {changeText(change)}
                          </li>
                        ))
                      ) : (
                        <li>{version.schemaId === d.schemaHistory[0].schemaId ? 'first schema' : 'no field changes'}</li>
                      )}
                    </ul>
                  </li>
                ))}
              </ol>
            ) : (
              <p className="jp-AIStorExplorer-note">One schema so far.</p>
            )}
          </Section>
        </>
      );
    }
    case 'view':
      return (
        <Section title="Columns">
          <Fields fields={loaded.details.schema.fields} label="Columns" />
        </Section>
      );
    case 'delta':
      return (
        <Section title="Columns">
          <Table
            label="Columns"
            columns={['name', 'type', 'nullable', 'metadata']}
            rows={loaded.details.schema.fields.map(f => [
              f.name,
              <code>{typeText(f.type)}</code>,
              f.nullable ? 'yes' : 'no',
              f.metadata && Object.keys(f.metadata).length ? valueText(f.metadata) : ''
            ])}
            empty="No columns."
          />
        </Section>
      );
    case 'shared':
      return (
        <Section title="Columns a recipient sees">
          <Table
            label="Columns"
            columns={['name', 'type', 'nullable']}
            rows={loaded.details.schemaFields.map(f => [f.name, <code>{typeText(f.type)}</code>, f.nullable ? 'yes' : 'no'])}
            empty="No columns."
          />
        </Section>
      );
  }
}
