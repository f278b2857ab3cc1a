/** The overview section: where the table is, its format, size, counts, layout and properties. */
import React from 'react';

import { typeText } from '../../format';
import { bytesText, countText, timeText } from '../display';
import { Loaded } from '../model';
import { IIcebergDetails } from '../types';
import { Facts, Properties, Section, Table } from './common';

function IcebergOverview({ details }: { details: IIcebergDetails }): JSX.Element {
  const o = details.overview;
  const names = new Map(details.schema.fields.map(field => [field.id, field.name]));
  const column = (id: number) => names.get(id) ?? `field ${id}`;
  const sortFields = o.sortOrder?.fields ?? [];
  return (
    <>
      <Facts
        label="Table facts"
        facts={[
          ['Location', <code>{o.location ?? details.location}</code>],
          ['Format', `Iceberg v${o.formatVersion ?? details.formatVersion}`],
          ['Size', bytesText(o.totalSizeBytes)],
          ['Data files', countText(o.fileCount)],
          ['Delete files', countText(o.deleteFileCount)],
          ['Rows', countText(o.rowCount)],
          ['Snapshots', countText(details.snapshots.length)],
          ['Last updated', timeText(o.lastUpdated)]
        ]}
      />
      <Section title="Partitioning">
        <Table
          label="Partition fields"
          columns={['field', 'transform', 'source column']}
          rows={(o.partitionSpec?.fields ?? []).map(f => [f.name, f.transform, column(f['source-id'])])}
          empty="Not partitioned."
        />
      </Section>
      <Section title="Sort order">
        <Table
          label="Sort fields"
          columns={['column', 'transform', 'direction', 'nulls']}
          rows={sortFields.map(f => [column(f['source-id']), f.transform, f.direction, f['null-order']])}
          empty="Unsorted."
        />
      </Section>
      <Section title="Properties">
        <Properties properties={details.properties} />
      </Section>
    </>
  );
}

export function Overview({ loaded }: { loaded: Loaded }): JSX.Element {
  switch (loaded.kind) {
    case 'iceberg':
      return <IcebergOverview details={loaded.details} />;
    case 'delta': {
      const d = loaded.details;
      return (
        <>
          <Facts
            label="Table facts"
            facts={[
              ['Location', <code>{d.location}</code>],
              ['Format', 'Delta Lake'],
              ['Version', String(d.version)],
              ['Size', bytesText(d.totalSizeBytes)],
              ['Files', countText(d.fileCount)],
              ['Rows', countText(d.rowCount)],
              ['Partitioned by', d.partitionColumns.length ? d.partitionColumns.join(', ') : 'Not partitioned.']
            ]}
          />
          <Section title="Properties">
            <Properties properties={d.properties} />
          </Section>
        </>
      );
    }
    case 'view': {
      const v = loaded.details;
      return (
        <>
          <Facts
            label="View facts"
            facts={[
              ['Location', <code>{v.location ?? 'unknown'}</code>],
              ['Current version', String(v.currentVersionId ?? 'none')]
            ]}
          />
          {v.sql.map(({ dialect, sql }) => (
            <Section key={dialect} title={`SQL (${dialect})`}>
              <pre className="jp-AIStorExplorer-sql" aria-label={`SQL in ${dialect}`}>
                {sql}
              </pre>
            </Section>
          ))}
          <Section title="Properties">
            <Properties properties={v.properties} />
          </Section>
        </>
      );
    }
    case 'shared': {
      const s = loaded.details;
      return (
        <>
          <Facts
            label="Shared table facts"
            facts={[
              ['Shared as', `${s.share}.${s.schema}.${s.table}`],
              ['Kind', s.kind],
              ['Source', s.source],
              ['Format', s.format],
              ['Version', s.version === null ? 'unknown' : String(s.version)],
              ['Partitioned by', s.partitionColumns.length ? s.partitionColumns.join(', ') : 'Not partitioned.']
            ]}
          />
          <Section title="Schema a recipient sees">
            <Table
              label="Shared schema"
              columns={['column', 'type', 'nullable']}
              rows={s.schemaFields.map(f => [f.name, typeText(f.type), f.nullable ? 'yes' : 'no'])}
              empty="No columns."
            />
          </Section>
        </>
      );
    }
  }
}
