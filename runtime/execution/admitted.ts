// Runs a commit under admission: counted in before (or refused with 429), counted back out if it does not commit.
import type { Admission } from './admission.js';

export async function admitted<T>(admission: Pick<Admission, 'admit' | 'release'>, executions: number, commit: () => Promise<T>): Promise<T> {
  admission.admit(executions);
  try {
    return await commit();
  } catch (error) {
    admission.release(executions);
    throw error;
  }
}
