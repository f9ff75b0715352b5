// Types of the ES module entry (lib/esm.mjs): the same names as index.d.ts,
// plus the default export, the whole module object.
import * as weida from '../index.js';

export * from '../index.js';
export default weida;
