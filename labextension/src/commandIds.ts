/** The panel's JupyterLab commands (commands.ts registers them; menus and buttons run them). */
export const CommandIDs = {
  open: 'aistor-lab:open',
  refresh: 'aistor-lab:refresh',
  createWarehouse: 'aistor-lab:create-warehouse',
  deleteWarehouse: 'aistor-lab:delete-warehouse',
  createNamespace: 'aistor-lab:create-namespace',
  deleteNamespace: 'aistor-lab:delete-namespace',
  createTable: 'aistor-lab:create-table',
  deleteTable: 'aistor-lab:delete-table',
  shareTable: 'aistor-lab:share-table',
  createShare: 'aistor-lab:create-share',
  removeShare: 'aistor-lab:remove-share',
  removeSharedTable: 'aistor-lab:remove-shared-table',
  createToken: 'aistor-lab:create-token',
  revokeToken: 'aistor-lab:revoke-token',
  copySnippet: 'aistor-lab:copy-snippet',
  insertSnippet: 'aistor-lab:insert-snippet',
  openExplorer: 'aistor-lab:open-explorer'
} as const;
