// A secret shown once in a modal dialog with a copy button; closing the dialog drops it from the page for good.
import { useEffect, useRef, useState } from 'preact/hooks';
import { copyOrSelect } from './copy';

export function SecretDialog({ title, secret, children, onClose }: { title: string; secret: string; children?: preact.ComponentChildren; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copy, setCopy] = useState<'idle' | 'copied' | 'selected'>('idle');
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    // Escape also closes a modal dialog: onClose runs for every way out.
    <dialog ref={dialog} aria-labelledby="secret-title" onClose={onClose} class="secret-dialog">
      <h2 id="secret-title">{title}</h2>
      <p>Copy it now and store it somewhere safe: it is shown only this once.</p>
      {children}
      <label>
        Secret
        <input ref={field} readOnly value={secret} spellcheck={false} class="secret" onFocus={(e) => e.currentTarget.select()} />
      </label>
      <p role="status" aria-live="polite">
        {copy === 'copied' ? 'Copied to the clipboard.' : copy === 'selected' ? 'The clipboard is not available here: the secret is selected, press Ctrl+C (⌘C) to copy it.' : ''}
      </p>
      <div class="actions">
        <button type="button" onClick={async () => setCopy(await copyOrSelect(secret, field.current))}>Copy</button>
        <button type="button" class="secondary" onClick={() => dialog.current?.close()}>Done</button>
      </div>
    </dialog>
  );
}
