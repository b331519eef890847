// Copies a secret to the clipboard; where the Clipboard API is missing or refused, selects it for the person to copy.
/** Returns 'copied' when the clipboard holds the text, 'selected' when the field's text is selected instead. */
export async function copyOrSelect(text: string, field: HTMLInputElement | null): Promise<'copied' | 'selected'> {
  try {
    if (!navigator.clipboard?.writeText) throw new Error('no Clipboard API');
    await navigator.clipboard.writeText(text);
    return 'copied';
  } catch {
    // Not a secure context, or the permission was refused: the selected text is one Ctrl+C (⌘C) away.
    field?.focus();
    field?.select();
    return 'selected';
  }
}
