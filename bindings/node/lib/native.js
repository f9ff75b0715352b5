'use strict';
/**
 * Loads the prebuilt addon for this platform. The package ships
 * `prebuilds/<platform>-<arch>/weida.node` beside the `libweida.so` it
 * links (found through an `$ORIGIN` rpath), so nothing is compiled or
 * downloaded at install time and no Go toolchain is needed.
 * @module weida/lib/native
 */
const path = require('node:path');

const where = path.join(__dirname, '..', 'prebuilds', `${process.platform}-${process.arch}`, 'weida.node');

let native;
try {
  native = require(where);
} catch (error) {
  throw new Error(
    `weida: no prebuilt addon for ${process.platform}-${process.arch} (looked for ${where}); ` +
      'this package ships one per platform it was built on',
    { cause: error },
  );
}

module.exports = native;
