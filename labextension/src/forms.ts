/**
 * The dialogs of the panel's actions: simple field forms and the "New table" schema form. Fields
 * are checked as the user types (the problem shows under the field, OK stays disabled); a form
 * whose command fails opens again with what was typed and the error next to the field it concerns.
 */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { concernedField, IFormError } from './formErrors';
import { tableNameProblem } from './nameRules';
import { COLUMN_TYPES, columnsProblem, IColumn } from './schemaForm';

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
  /** Why a value is refused (nameRules.ts), or null. */
  check?: (value: string) => string | null;
}

export type Values = Record<string, string>;

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
  const problem = document.createElement('small');
  problem.className = 'jp-AIStorLab-fieldError';
  problem.id = `aistor-lab-${spec.name}-problem`;
  problem.setAttribute('aria-live', 'polite');
  input.setAttribute('aria-describedby', problem.id);
  label.append(problem);
  return label;
}

/**
 * Shows `message` under the field of `input` (null: clears it). A problem of the value itself also
 * marks the input invalid, which JupyterLab's Dialog reads to disable its OK button; the service's
 * refusal (`blocking` false) does not: the user may send the same value again.
 */
function showProblem(input: HTMLInputElement | HTMLSelectElement, message: string | null, blocking = true): void {
  if (blocking) {
    input.setCustomValidity(message ?? '');
  }
  input.setAttribute('aria-invalid', String(!!message));
  const problem = input.closest('label')?.querySelector('.jp-AIStorLab-fieldError');
  if (problem) {
    problem.textContent = message ?? '';
  }
}

/**
 * A form body that checks its fields on every keystroke. Its listener is on the window in the
 * capture phase, so it runs before the Dialog's own `input` listener (on the document) reads the
 * inputs' validity.
 */
abstract class CheckedBody<T> extends Widget implements Dialog.IBodyWidget<T> {
  abstract getValue(): T;

  /** Marks each invalid field (and the form's own message); answers whether all is well. */
  protected abstract check(): void;

  handleEvent(event: Event): void {
    if (event.type === 'input' && this.node.contains(event.target as Node)) {
      this.check();
    }
  }

  protected onAfterAttach(): void {
    window.addEventListener('input', this, true);
    // Let the Dialog see the state of the values it opened with (an empty name disables OK).
    requestAnimationFrame(() => this.node.querySelector('input')?.dispatchEvent(new Event('input', { bubbles: true })));
  }

  protected onBeforeDetach(): void {
    window.removeEventListener('input', this, true);
  }
}

/** The message under the form: an error that concerns no one field. */
function formMessage(text: string | undefined): HTMLElement {
  const message = document.createElement('p');
  message.className = 'jp-AIStorLab-formError';
  message.setAttribute('role', 'alert');
  message.textContent = text ?? '';
  return message;
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

class FieldsBody extends CheckedBody<Values> {
  private inputs = new Map<string, HTMLInputElement | HTMLSelectElement>();

  constructor(
    private readonly fields: IFieldSpec[],
    private readonly error?: IFormError
  ) {
    super();
    this.addClass('jp-AIStorLab-form');
    for (const spec of fields) {
      const input = fieldInput(spec);
      this.inputs.set(spec.name, input);
      this.node.append(labelled(spec, input));
      // The datalist must live in the document, next to its input.
      input.querySelector('datalist') && this.node.append(input.querySelector('datalist')!);
    }
    this.node.append(formMessage(error && !error.field ? error.message : undefined));
    const concerned = error?.field && this.inputs.get(error.field);
    if (concerned) {
      showProblem(concerned, error!.message, false);
    }
  }

  getValue(): Values {
    return Object.fromEntries([...this.inputs].map(([name, input]) => [name, input.value.trim()]));
  }

  protected check(): void {
    for (const spec of this.fields) {
      const input = this.inputs.get(spec.name)!;
      const value = input.value.trim();
      const problem = spec.check?.(value) ?? null;
      // The service's refusal stays under its field until the value it refused is changed.
      const refused = spec.name === this.error?.field && value === spec.value;
      if (!problem && refused) {
        showProblem(input, this.error!.message, false);
      } else if (spec.check) {
        showProblem(input, problem);
      }
    }
  }

  protected onAfterAttach(): void {
    super.onAfterAttach();
    this.inputs.values().next().value?.focus();
  }
}

/** The first problem the fields' own checks find in `values`. */
function fieldsProblem(fields: IFieldSpec[], values: Values): IFormError | null {
  for (const spec of fields) {
    const message = spec.check?.(values[spec.name] ?? '');
    if (message) {
      return { message, field: spec.name };
    }
  }
  return null;
}

/**
 * Asks for values and hands them to `submit` (which runs the command and answers its error, or
 * null) until it succeeds or the user cancels. A failure opens the form again with what was typed
 * and the error next to its field, or under the form. Answers the values that worked, or null.
 */
export async function askUntilDone(
  title: string,
  fields: IFieldSpec[],
  accept: string,
  submit: (values: Values) => Promise<string | null>
): Promise<Values | null> {
  let error: IFormError | undefined;
  for (;;) {
    const result = await showDialog({
      title,
      body: new FieldsBody(fields, error),
      buttons: [Dialog.cancelButton(), Dialog.okButton({ label: accept })],
      focusNodeSelector: 'input'
    });
    if (!result.button.accept || !result.value) {
      return null;
    }
    const values = result.value;
    fields = fields.map(spec => ({ ...spec, value: values[spec.name] }));
    const problem = fieldsProblem(fields, values);
    const message = problem ? null : await submit(values);
    if (!problem && message === null) {
      return values;
    }
    error = problem ?? { message: message!, field: concernedField(fields, message!) };
  }
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
class TableBody extends CheckedBody<INewTable> {
  private name = fieldInput({ name: 'table', label: 'Table', placeholder: 'orders' }) as HTMLInputElement;
  private partition = fieldInput({
    name: 'partition',
    label: 'Partition by',
    placeholder: 'day(created_at)'
  }) as HTMLInputElement;
  private rows: HTMLElement;
  private columnsMessage = formMessage(undefined);

  constructor(table: INewTable, error?: IFormError) {
    super();
    this.addClass('jp-AIStorLab-form');
    this.rows = document.createElement('div');
    this.rows.className = 'jp-AIStorLab-columns';
    const add = document.createElement('button');
    add.className = 'jp-mod-styled jp-mod-reject';
    add.textContent = 'Add column';
    add.type = 'button';
    add.onclick = () => this.addRow({ name: '', type: 'string', required: false });
    const columns = document.createElement('div');
    columns.className = 'jp-AIStorLab-field';
    const caption = document.createElement('span');
    caption.textContent = 'Columns';
    columns.append(caption, this.rows, this.columnsMessage, add);
    this.name.value = table.name;
    this.partition.value = table.partition;
    this.node.append(
      labelled({ name: 'table', label: 'Table' }, this.name),
      columns,
      labelled(
        { name: 'partition', label: 'Partition by (optional)', help: 'COLUMN, day(COLUMN), bucket(16, COLUMN)…' },
        this.partition
      ),
      formMessage(error?.field ? undefined : error?.message)
    );
    table.columns.forEach(column => this.addRow(column));
    if (error?.field) {
      showProblem(error.field === 'table' ? this.name : this.partition, error.message, false);
    }
  }

  private addRow(column: IColumn): void {
    const row = document.createElement('div');
    row.className = 'jp-AIStorLab-column';
    const nameInput = fieldInput({ name: 'column', label: '', value: column.name, placeholder: 'column name' });
    nameInput.setAttribute('aria-label', 'Column name');
    const typeSelect = fieldInput({ name: 'type', label: '', value: column.type, options: COLUMN_TYPES });
    typeSelect.setAttribute('aria-label', 'Column type');
    const requiredLabel = document.createElement('label');
    const requiredBox = document.createElement('input');
    requiredBox.type = 'checkbox';
    requiredBox.checked = column.required;
    requiredLabel.append(requiredBox, ' required');
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'jp-mod-styled jp-mod-reject';
    remove.textContent = '×';
    remove.title = 'Remove this column';
    remove.setAttribute('aria-label', 'Remove this column');
    remove.onclick = () => {
      row.remove();
      // The Dialog checks its inputs on `input` events: a removed row changes what is valid.
      this.node.dispatchEvent(new Event('input', { bubbles: true }));
    };
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

  protected check(): void {
    const table = this.getValue();
    showProblem(this.name, tableNameProblem(table.name));
    const problem = columnsProblem(table.columns);
    this.columnsMessage.textContent = problem ?? '';
    // The Dialog disables OK while an element of it has jp-mod-error.
    this.columnsMessage.classList.toggle('jp-mod-error', !!problem);
  }
}

/** Why a new table's values cannot work, before anything is sent. */
export function newTableProblem(table: INewTable): IFormError | null {
  const name = tableNameProblem(table.name);
  if (name) {
    return { message: name, field: 'table' };
  }
  const columns = columnsProblem(table.columns);
  return columns ? { message: columns } : null;
}

/** The fields of the "New table" form a refusal may be about (its columns have their own message). */
const TABLE_FIELDS = [
  { name: 'partition', label: 'Partition' },
  { name: 'table', label: 'Table' }
];

/** The "New table" form, asked again with its values and the error until `submit` succeeds. */
export async function askNewTable(
  namespace: string,
  submit: (table: INewTable) => Promise<string | null>
): Promise<INewTable | null> {
  let table: INewTable = {
    name: '',
    columns: [
      { name: 'id', type: 'long', required: true },
      { name: '', type: 'string', required: false }
    ],
    partition: ''
  };
  let error: IFormError | undefined;
  for (;;) {
    const result = await showDialog({
      title: `New table in ${namespace}`,
      body: new TableBody(table, error),
      buttons: [Dialog.cancelButton(), Dialog.okButton({ label: 'Create' })],
      focusNodeSelector: 'input'
    });
    if (!result.button.accept || !result.value) {
      return null;
    }
    table = result.value;
    const problem = newTableProblem(table);
    const message = problem ? null : await submit(table);
    if (!problem && message === null) {
      return table;
    }
    error = problem ?? { message: message!, field: concernedField(TABLE_FIELDS, message!) };
  }
}
