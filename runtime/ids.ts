// Identifiers: time-ordered UUIDv7 for rows, so indexes stay append-mostly.
import { v7 } from 'uuid';

export const newId = (): string => v7();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID.test(value);
