// Compile-time equality of two types: response schemas assert they describe exactly what the runtime returns.

/** `true` only when A and B are mutually assignable; a `const x: Same<A, B> = true` fails to compile otherwise. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
