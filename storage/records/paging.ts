// The keyset position every cursor-paged list shares, on both engines.

/** A row's place in (created_at, id) order: a page continues strictly past the last row of the previous one. */
export interface CreatedCursor {
  createdAt: number;
  id: string;
}
