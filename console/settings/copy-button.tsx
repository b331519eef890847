// Copies a value shown once (an invitation link) to the clipboard, saying whether it worked.
import { useState } from 'preact/hooks';

export function CopyButton({ value, label }: { value: string; label: string }) {
  const [done, setDone] = useState<string | null>(null);
  const copy = () =>
    navigator.clipboard.writeText(value).then(
      () => setDone('Copied.'),
      () => setDone('Copying is not allowed here: select the text and copy it.'),
    );
  return (
    <span class="copy">
      <button type="button" class="secondary" onClick={copy}>{label}</button>
      <span role="status">{done}</span>
    </span>
  );
}
