/** The dialogs of the panel's actions: simple field forms and the "New table" schema form. */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { COLUMN_TYPES, IColumn } from './schemaForm';

export interface IFieldSpec {
  name: string;
  label: string;
  value?: string;
  placeholder?: string;
  /** A select of these values instead of a text box. */
  options?: string[];
  /** Suggestions for a text box. */
  suggestions?: string[];
  help?: string;
}

type Values = Record<string, string>;

function labelled(spec: IFieldSpec, input: HTMLElement): HTMLElement {
  const label = document.createElement('label');
  label.className = 'jp-AIStorLab-field';
  const caption = document.createElement('span');
  caption.textContent = spec.label;
  label.append(caption, input);
  if (spec.help) {
    const help = document.createElement('small');
    help.textContent = spec.help;
    label.append(help);
  }
  return label;
}

function fieldInput(spec: IFieldSpec): HTMLInputElement | HTMLSelectElement {
  if (spec.options) {
    const select = document.createElement('select');
    select.className = 'jp-mod-styled';
    select.name = spec.name;
    for (const option of spec.options) {
      select.append(new Option(option, option, false, option === spec.value));
    }
    return select;
  }
  const input = document.createElement('input');
  input.className = 'jp-mod-styled';
  input.name = spec.name;
  input.value = spec.value ?? '';
  input.placeholder = spec.placeholder ?? '';
  if (spec.suggestions?.length) {
    const list = document.createElement('datalist');
    list.id = `aistor-lab-${spec.name}-suggestions`;
    spec.suggestions.forEach(value => list.append(new Option(value, value)));
    input.setAttribute('list', list.id);
    input.append(list);
  }
  return input;
}

class FieldsBody extends Widget implements Dialog.IBodyWidget<Values> {
  private inputs = new Map<string, HTMLInputElement | HTMLSelectElement>();

  constructor(fields: IFieldSpec[]) {
    super();
    this.addClass('jp-AIStorLab-form');
    for (const spec of fields) {
      const input = fieldInput(spec);
      this.inputs.set(spec.name, input);
      this.node.append(labelled(spec, input));
      // The datalist must live in the document, next to its input.
      input.querySelector('datalist') && this.node.append(input.querySelector('datalist')!);
    }
  }

  getValue(): Values {
    return Object.fromEntries([...this.inputs].map(([name, input]) => [name, input.value.trim()]));
  }

  onAfterAttach(): void {
    const first = this.inputs.values().next().value;
    first?.focus();
  }
}

/** Asks for a few values; null when cancelled. */
export async function askFields(title: string, fields: IFieldSpec[], accept: string): Promise<Values | null> {
  const result = await showDialog({
    title,
    body: new FieldsBody(fields),
    buttons: [Dialog.cancelButton(), Dialog.okButton({ label: accept })],
    focusNodeSelector: 'input'
  });
  return result.button.accept ? result.value : null;
}

export async function confirm(title: string, message: string, accept: string): Promise<boolean> {
  const result = await showDialog({
    title,
    body: message,
    buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: accept })]
  });
  return result.button.accept;
}

export interface INewTable {
  name: string;
  columns: IColumn[];
  partition: string;
}

/** The "New table" form: a name, rows of columns (name, type, required), a partition field. */
class TableBody extends Widget implements Dialog.IBodyWidget<INewTable> {
  private name = fieldInput({ name: 'table', label: 'Table', placeholder: 'orders' }) as HTMLInputElement;
  private partition = fieldInput({
    name: 'partition',
    label: 'Partition by',
    placeholder: 'day(created_at)'
  }) as HTMLInputElement;
  private rows: HTMLElement;

  constructor() {
    super();
    this.addClass('jp-AIStorLab-form');
    this.rows = document.createElement('div');
    this.rows.className = 'jp-AIStorLab-columns';
    const add = document.createElement('button');
    add.className = 'jp-mod-styled jp-mod-reject';
    add.textContent = 'Add column';
    add.type = 'button';
    add.onclick = () => this.addRow();
    const columns = document.createElement('div');
    columns.className = 'jp-AIStorLab-field';
    const caption = document.createElement('span');
    caption.textContent = 'Columns';
    columns.append(caption, this.rows, add);
    this.node.append(
      labelled({ name: 'table', label: 'Table' }, this.name),
      columns,
      labelled(
        { name: 'partition', label: 'Partition by (optional)', help: 'COLUMN, day(COLUMN), bucket(16, COLUMN)…' },
        this.partition
      )
    );
    this.addRow('id', 'long', true);
    this.addRow();
  }

  private addRow(name = '', type = 'string', required = false): void {
    const row = document.createElement('div');
    row.className = 'jp-AIStorLab-column';
    const nameInput = fieldInput({ name: 'column', label: '', value: name, placeholder: 'column name' });
    nameInput.setAttribute('aria-label', 'Column name');
    const typeSelect = fieldInput({ name: 'type', label: '', value: type, options: COLUMN_TYPES });
    typeSelect.setAttribute('aria-label', 'Column type');
    const requiredLabel = document.createElement('label');
    const requiredBox = document.createElement('input');
    requiredBox.type = 'checkbox';
    requiredBox.checked = required;
    requiredLabel.append(requiredBox, ' required');
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'jp-mod-styled jp-mod-reject';
    remove.textContent = '×';
    remove.title = 'Remove this column';
    remove.onclick = () => row.remove();
    row.append(nameInput, typeSelect, requiredLabel, remove);
    this.rows.append(row);
  }

  getValue(): INewTable {
    const columns = [...this.rows.querySelectorAll<HTMLElement>('.jp-AIStorLab-column')].map(row => ({
      name: row.querySelector<HTMLInputElement>('input[name=column]')!.value,
      type: row.querySelector<HTMLSelectElement>('select')!.value,
      required: row.querySelector<HTMLInputElement>('input[type=checkbox]')!.checked
    }));
    return { name: this.name.value.trim(), columns, partition: this.partition.value.trim() };
  }
}

export async function askNewTable(namespace: string): Promise<INewTable | null> {
  const result = await showDialog({
    title: `New table in ${namespace}`,
    body: new TableBody(),
    buttons: [Dialog.cancelButton(), Dialog.okButton({ label: 'Create' })],
    focusNodeSelector: 'input'
  });
  return result.button.accept ? result.value : null;
}
