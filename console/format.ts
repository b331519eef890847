// Times in the viewer's own timezone and locale.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const formatTime = (iso: string | null): string => (iso ? dateTime.format(new Date(iso)) : '');
