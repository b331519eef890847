// Times in the viewer's own timezone and locale.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const withSeconds = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** `seconds`: for values that change every few seconds (the operations view's "updated at"). */
export const formatTime = (iso: string | null, seconds = false): string => (iso ? (seconds ? withSeconds : dateTime).format(new Date(iso)) : '');
