/** The lower half of the panel: what the selected node is, its actions, and a table's or share's details. */
import { Button, HTMLSelect } from '@jupyterlab/ui-components';
import { CommandRegistry } from '@lumino/commands';
import React, { useState } from 'react';

import { STORE_ACTIONS } from '../buckets/commands';
import { FactList, RowTable, sortedEntries } from '../components/records';
import { carriesFiles, takesUploads, uploadInto } from '../buckets/drop';
import { s3Path } from '../buckets/listing';
import { ObjectDetails } from '../buckets/ObjectDetails';
import { CommandIDs } from '../commandIds';
import { Details, PanelController } from '../controller';
import { sourceOfNode } from '../explorer/nodeSource';
import { cellText, newestFirst, shortTime, snapshotTime, summaryDetail, summaryText, typeText } from '../format';
import { SNIPPET_LABELS, SnippetKind, snippetKinds } from '../snippets';
import { TOKEN_STATE_LABELS, tokenState } from '../tokenState';
import { ITreeNode, sharedTableSource } from '../treeModel';
import { IShareInfo, ITableDetails, IToken } from '../types';

type Props = { controller: PanelController; commands: CommandRegistry };

const ACTIONS: Partial<Record<ITreeNode['kind'], string[]>> = {
  warehouse: [CommandIDs.createNamespace, CommandIDs.deleteWarehouse],
  namespace: [CommandIDs.createTable, CommandIDs.createNamespace, CommandIDs.deleteNamespace],
  table: [CommandIDs.shareTable, CommandIDs.deleteTable],
  view: [],
  share: [CommandIDs.createToken, CommandIDs.removeShare],
  'shared-table': [CommandIDs.removeSharedTable],
  ...STORE_ACTIONS
};

function Actions({ node, commands }: { node: ITreeNode; commands: CommandRegistry }): JSX.Element | null {
  // A command that does not apply to this node (Share… of a plain folder) is left out.
  const ids = (ACTIONS[node.kind] ?? []).filter(id => commands.isVisible(id));
  const kinds = snippetKinds(node);
  const [kind, setKind] = useState<SnippetKind>(kinds[0]);
  const chosen = kinds.includes(kind) ? kind : kinds[0];
  return (
    <div className="jp-AIStorLab-actions">
      {sourceOfNode(node) && (
        <Button small minimal={false} onClick={() => void commands.execute(CommandIDs.openExplorer)} title={commands.caption(CommandIDs.openExplorer)}>
          Open
        </Button>
      )}
      {ids.map(id => (
        <Button key={id} small minimal={false} onClick={() => void commands.execute(id)} title={commands.caption(id)}>
          {commands.label(id)}
        </Button>
      ))}
      {chosen && (
        <div className="jp-AIStorLab-snippet">
          <HTMLSelect
            aria-label="Snippet"
            value={chosen}
            onChange={event => setKind(event.currentTarget.value as SnippetKind)}
            options={kinds.map(value => ({ value, label: SNIPPET_LABELS[value] }))}
          />
          <Button small onClick={() => void commands.execute(CommandIDs.copySnippet, { kind: chosen })}>
            Copy
          </Button>
          <Button small onClick={() => void commands.execute(CommandIDs.insertSnippet, { kind: chosen })}>
            Insert into notebook
          </Button>
        </div>
      )}
    </div>
  );
}

function Grid(props: { columns: string[]; rows: React.ReactNode[][]; empty: string; label: string }): JSX.Element {
  if (!props.rows.length) {
    return <p className="jp-AIStorLab-note">{props.empty}</p>;
  }
  return (
    <div className="jp-AIStorLab-gridWrap">
      <RowTable className="jp-AIStorLab-grid" label={props.label} columns={props.columns} rows={props.rows} />
    </div>
  );
}

function Section(props: { title: string; children: React.ReactNode }): JSX.Element {
  return (
    <section className="jp-AIStorLab-section">
      <h3>{props.title}</h3>
      {props.children}
    </section>
  );
}

function TableDetails({ table }: { table: ITableDetails }): JSX.Element {
  const fieldNames = new Map(table.schema.fields.map(f => [f.id, f.name]));
  return (
    <>
      <FactList
        className="jp-AIStorLab-facts"
        label="Table"
        facts={[
          ['Location', table.location],
          ['Format', `Iceberg v${table.formatVersion}`]
        ]}
      />
      <Section title="Schema">
        <Grid
          label="Schema"
          columns={['id', 'name', 'type', 'required']}
          rows={table.schema.fields.map(f => [f.id, f.name, typeText(f.type), f.required ? 'yes' : 'no'])}
          empty="(no columns)"
        />
      </Section>
      <Section title="Partition spec">
        <Grid
          label="Partition spec"
          columns={['field', 'transform', 'source']}
          rows={table.partitionSpec.fields.map(f => [f.name, f.transform, fieldNames.get(f['source-id']) ?? f['source-id']])}
          empty="Not partitioned."
        />
      </Section>
      <Section title="Properties">
        {Object.keys(table.properties).length ? (
          <FactList className="jp-AIStorLab-properties" label="Properties" facts={sortedEntries(table.properties)} />
        ) : (
          <p className="jp-AIStorLab-note">(none)</p>
        )}
      </Section>
      <Section title="Snapshots">
        {table.snapshots.length ? (
          <ul className="jp-AIStorLab-snapshots" aria-label="Snapshots">
            {newestFirst(table.snapshots).map(s => (
              <li key={s['snapshot-id']} title={summaryDetail(s)}>
                <div>
                  <strong>{s.summary?.operation ?? 'snapshot'}</strong> {snapshotTime(s)}
                  {s['snapshot-id'] === table.currentSnapshotId && <span className="jp-AIStorLab-badge">current</span>}
                </div>
                <small>
                  {s['snapshot-id']}
                  {summaryText(s) && ` · ${summaryText(s)}`}
                </small>
              </li>
            ))}
          </ul>
        ) : (
          <p className="jp-AIStorLab-note">No snapshots yet: the table has no data.</p>
        )}
      </Section>
      <Section title={`Preview${table.preview ? ` (first ${table.preview.rows.length} rows)` : ''}`}>
        {table.preview && (
          <Grid
            label="Preview"
            columns={table.preview.columns}
            rows={table.preview.rows.map(row => table.preview!.columns.map(c => cellText(row[c])))}
            empty="No rows."
          />
        )}
      </Section>
    </>
  );
}

function ShareDetails(props: { share: IShareInfo; tokens: IToken[]; commands: CommandRegistry }): JSX.Element {
  const { share, tokens, commands } = props;
  const tables = share.schemas.flatMap(schema => schema.tables.map(table => ({ schema: schema.name, table })));
  return (
    <>
      {share.description && <p>{share.description}</p>}
      <Section title="Tables">
        {tables.length ? (
          <ul className="jp-AIStorLab-list" aria-label="Shared tables">
            {tables.map(({ schema, table }) => (
              <li key={`${schema}/${table.name}`}>
                <div>
                  {schema} / <strong>{table.name}</strong>
                  <span className="jp-AIStorLab-badge">{table.kind === 'delta' ? 'Delta' : 'Iceberg'}</span>
                </div>
                <small>{sharedTableSource(table)}</small>
              </li>
            ))}
          </ul>
        ) : (
          <p className="jp-AIStorLab-note">(no tables)</p>
        )}
      </Section>
      <Section title="Tokens">
        {tokens.length ? (
          <ul className="jp-AIStorLab-list" aria-label="Tokens">
            {tokens.map(token => (
              <li key={token.id}>
                <div className="jp-AIStorLab-listRow">
                  <span>
                    <span className={`jp-AIStorLab-badge jp-AIStorLab-tokenState jp-mod-${tokenState(token)}`}>
                      {TOKEN_STATE_LABELS[tokenState(token)]}
                    </span>
                    <strong>{token.description || '(no description)'}</strong>
                    {token.expirationTime ? ` · expires ${shortTime(token.expirationTime)}` : ' · never expires'}
                  </span>
                  <Button
                    small
                    minimal
                    title="Revoke this token"
                    onClick={() => void commands.execute(CommandIDs.revokeToken, { token: token.id })}
                  >
                    Revoke
                  </Button>
                </div>
                <small>
                  {token.id} · created {shortTime(token.created)}
                </small>
              </li>
            ))}
          </ul>
        ) : (
          <p className="jp-AIStorLab-note">No tokens yet: create one to give a recipient a profile.share.</p>
        )}
      </Section>
    </>
  );
}

function Body({ details, commands }: { details: Details; commands: CommandRegistry }): JSX.Element {
  switch (details.kind) {
    case 'table':
      return <TableDetails table={details.table} />;
    case 'object':
      return <ObjectDetails object={details.object} />;
    default:
      return <ShareDetails share={details.share} tokens={details.tokens} commands={commands} />;
  }
}

export function DetailsView({ controller, commands }: Props): JSX.Element | null {
  const node = controller.selected;
  if (!node || node.kind === 'group') {
    return null;
  }
  const path =
    node.kind === 'shared-table' || node.kind === 'schema' || node.kind === 'share'
      ? [node.share, node.schema, node.kind === 'shared-table' ? node.label : undefined]
      : takesUploads(node)
        ? [s3Path(node)]
        : [node.warehouse, node.namespace, node.table];
  // Files dropped on the details of a bucket, folder or object are uploaded there.
  const dropping = (event: React.DragEvent) => takesUploads(node) && carriesFiles(event);
  return (
    <div
      className="jp-AIStorLab-details"
      role="region"
      aria-label="Details"
      onDragOver={event => dropping(event) && event.preventDefault()}
      onDrop={event => {
        if (dropping(event)) {
          event.preventDefault();
          void uploadInto(controller, node, [...event.dataTransfer.files]);
        }
      }}
    >
      <h2 className="jp-AIStorLab-title">
        {path.filter(Boolean).join(' / ')}
        {node.badge && <span className="jp-AIStorLab-badge">{node.badge}</span>}
      </h2>
      <Actions node={node} commands={commands} />
      {controller.detailsLoading && <p className="jp-AIStorLab-note">Loading…</p>}
      {controller.detailsError && <p className="jp-AIStorLab-error">{controller.detailsError}</p>}
      {controller.details && <Body details={controller.details} commands={commands} />}
    </div>
  );
}
