/** Where a form shows why its command failed: next to the field the error is about, if one is. */

/** Why a command refused a form's values: `field` names the field it concerns, if one does. */
export interface IFormError {
  message: string;
  field?: string;
}

/**
 * The field an error message is about: a form's only checked field (the one name it asks for),
 * or else the first field whose label's first word the message names ("Share sales already
 * exists" -> the Share field). Undefined: the error goes under the form.
 */
export function concernedField(
  fields: { name: string; label: string; check?: unknown }[],
  message: string
): string | undefined {
  const checked = fields.filter(spec => spec.check);
  if (checked.length === 1) {
    return checked[0].name;
  }
  const text = message.toLowerCase();
  return fields.find(spec => new RegExp(`\\b${spec.label.split(' ')[0].toLowerCase()}\\b`).test(text))?.name;
}
